import { appendElements } from "../wire/edit.js";
import { scanTopLevel } from "../wire/json-scan.js";
import type { Provider, Span } from "../wire/types.js";
import { responsesContinuation } from "./responses-continuation.js";
import type { AssistantTurn } from "./turn.js";

/** What one expand call returns to the model. */
export interface ToolResult {
  readonly callId: string;
  readonly content: string;
}

/** The tool result for an id the store cannot give back (§7). */
export function missPlaceholder(id: string): string {
  return `[expand: original for id ${id} is no longer available]`;
}

/** The tool result for a call without a usable string `id` argument. */
export const MALFORMED_CALL = '[expand: the call needs a string argument "id"]';

/**
 * The next round's request: `text` with the assistant turn and one tool result per call (in call
 * order) appended to `messages` (Responses: see responsesContinuation). Every byte before the
 * insertion point stays as it was, so the provider's prompt cache covers the whole earlier
 * request. Undefined when `text` has no `messages` array.
 */
export function continuationRequest(
  text: string,
  provider: Provider,
  turn: AssistantTurn,
  results: readonly ToolResult[],
): string | undefined {
  if ("items" in turn) return responsesContinuation(text, turn, results);
  let span: Span | undefined;
  try {
    span = scanTopLevel(text)?.members.get("messages");
  } catch {
    return undefined;
  }
  const appended = [turn.message, ...resultMessages(provider, results)].map((message) =>
    JSON.stringify(message),
  );
  return span && appendElements(text, span, appended);
}

function resultMessages(provider: Provider, results: readonly ToolResult[]): unknown[] {
  if (provider !== "anthropic") {
    return results.map((result) => ({
      role: "tool",
      tool_call_id: result.callId,
      content: result.content,
    }));
  }
  return [
    {
      role: "user",
      content: results.map((result) => ({
        type: "tool_result",
        tool_use_id: result.callId,
        content: result.content,
      })),
    },
  ];
}
