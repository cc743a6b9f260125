import type { ToolResult } from "../../../expand/continuation.js";
import type { AssistantTurn } from "../../../expand/turn.js";
import { codeAt } from "../../../text/char-code.js";
import { appendElements, applyEdits } from "../../edit.js";
import { scanTopLevel } from "../../json-scan.js";
import type { Span } from "../../types.js";

/**
 * The next round of a Responses request (§8.2). The response's output items, as the upstream
 * wrote them (reasoning with its `encrypted_content` included), and one `function_call_output`
 * per call are appended to `input`; an `input` string is the user message it stands for. A
 * request that chains on stored responses (`previous_response_id`, `store` not false) instead
 * chains on this response: `previous_response_id` becomes its id and `input` holds only the
 * outputs, since the server holds the rest. Every other byte stays as it was. Undefined when
 * the request has no `input`, or chains and the response has no id (or the turn is not a
 * Responses turn).
 */
export function responsesContinuation(
  text: string,
  turn: AssistantTurn,
  results: readonly ToolResult[],
): string | undefined {
  if (!("items" in turn)) return undefined;
  let members: ReadonlyMap<string, Span> | undefined;
  try {
    members = scanTopLevel(text)?.members;
  } catch {
    return undefined;
  }
  const input = members?.get("input");
  if (members === undefined || input === undefined) return undefined;
  const outputs = results.map((result) =>
    JSON.stringify({
      type: "function_call_output",
      call_id: result.callId,
      output: result.content,
    }),
  );
  const previous = members.get("previous_response_id");
  if (previous !== undefined && chains(text, previous, members.get("store"))) {
    if (turn.responseId === undefined) return undefined;
    return applyEdits(text, [
      { span: previous, raw: JSON.stringify(turn.responseId) },
      { span: input, raw: `[${outputs.join(",")}]` },
    ]);
  }
  const appended = [...turn.items, ...outputs];
  if (codeAt(text, input.start) === QUOTE) {
    const message = `{"role":"user","content":${text.slice(input.start, input.end)}}`;
    return applyEdits(text, [{ span: input, raw: `[${[message, ...appended].join(",")}]` }]);
  }
  return appendElements(text, input, appended);
}

const QUOTE = 34;

/** Whether the request continues a stored response and its own response will be stored too. */
function chains(text: string, previous: Span, store: Span | undefined): boolean {
  return typeof valueAt(text, previous) === "string" && (!store || valueAt(text, store) !== false);
}

/** The value of a small member (an id, a flag); undefined for a value that does not parse. */
function valueAt(text: string, span: Span): unknown {
  try {
    return JSON.parse(text.slice(span.start, span.end)) as unknown;
  } catch {
    return undefined;
  }
}
