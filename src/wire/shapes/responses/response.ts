import { parseArguments, type ResponseTurn, type ToolUse } from "../../../expand/turn.js";
import { isRecord } from "../../is-record.js";
import { arrayElements, scanTopLevel } from "../../json-scan.js";

/**
 * The turn of a non-streaming Responses body (`object: "response"`), or undefined when it did not
 * complete (`incomplete`, `failed`: a call may be cut short) or its `output` cannot be read.
 */
export function responsesJsonTurn(
  body: Record<string, unknown>,
  text: string,
): ResponseTurn | undefined {
  if (body.status !== undefined && body.status !== "completed") return undefined;
  if (!Array.isArray(body.output)) return undefined;
  const texts = outputItemTexts(text);
  return texts && responseTurn(body.output, texts, body.id);
}

/**
 * The turn made of a response's output items (`items`, values) as the upstream wrote them
 * (`texts`, in the same order). A `function_call` is a call by its name; any other call item —
 * a custom tool, a built-in one (web search, shell, computer use, MCP) — counts as a call of
 * another tool under its item type, so the turn goes back to the client. Message and reasoning
 * items are carried as they are.
 */
export function responseTurn(
  items: readonly unknown[],
  texts: readonly string[],
  responseId: unknown,
): ResponseTurn | undefined {
  if (items.length !== texts.length) return undefined;
  const toolUses: ToolUse[] = [];
  for (const item of items) {
    if (!isRecord(item)) return undefined;
    const { type } = item;
    if (type === "message" || type === "reasoning") continue;
    if (type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string") return undefined;
      const input = typeof item.arguments === "string" ? parseArguments(item.arguments) : undefined;
      toolUses.push({ callId: item.call_id, name: item.name, input });
      continue;
    }
    const callId = typeof item.call_id === "string" ? item.call_id : String(item.id);
    toolUses.push({ callId, name: String(type), input: undefined });
  }
  return {
    items: texts,
    responseId: typeof responseId === "string" ? responseId : undefined,
    toolUses,
  };
}

/** The raw JSON text of member `name` of the object `text`; undefined when it has none. */
export function memberText(text: string, name: string): string | undefined {
  let span: ReturnType<typeof spanOf>;
  try {
    span = spanOf(text, name);
  } catch {
    return undefined;
  }
  return span && text.slice(span.start, span.end);
}

/** Each element of a response object's `output` array as written, in order. */
export function outputItemTexts(responseText: string): string[] | undefined {
  try {
    const span = spanOf(responseText, "output");
    const elements = span && arrayElements(responseText, span);
    return elements?.map((element) => responseText.slice(element.start, element.end));
  } catch {
    return undefined;
  }
}

function spanOf(text: string, name: string) {
  return scanTopLevel(text)?.members.get(name);
}
