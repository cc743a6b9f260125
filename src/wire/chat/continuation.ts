import type { AssistantTurn } from "../../expand/turn.js";
import { appendElements } from "../edit.js";
import { scanTopLevel } from "../json-scan.js";
import type { Span } from "../types.js";

/**
 * A chat request's next round (§8.2): `text` with the assistant message of `turn` and `results`
 * (the shape's tool-result messages, in call order) appended to `messages`. Every byte before
 * the insertion point stays as it was, so the provider's prompt cache covers the whole earlier
 * request. Undefined when the turn is not a chat turn or `text` has no `messages` array.
 */
export function appendToMessages(
  text: string,
  turn: AssistantTurn,
  results: readonly unknown[],
): string | undefined {
  if (!("message" in turn)) return undefined;
  let span: Span | undefined;
  try {
    span = scanTopLevel(text)?.members.get("messages");
  } catch {
    return undefined;
  }
  const appended = [turn.message, ...results].map((message) => JSON.stringify(message));
  return span && appendElements(text, span, appended);
}
