import { isRecord } from "../wire/is-record.js";
import type { Provider } from "../wire/types.js";
import { responsesJsonTurn } from "./parse-responses.js";
import { type AssistantTurn, parseArguments, type ToolUse } from "./turn.js";

/**
 * The assistant turn of a non-streaming response body, or undefined when the body is not a
 * single-choice response of the provider's shape (the response then goes back as it is).
 * `text` is the body as received: a Responses turn carries its output items back as written.
 */
export function parseJsonResponse(
  provider: Provider,
  body: unknown,
  text: string = JSON.stringify(body),
): AssistantTurn | undefined {
  if (!isRecord(body)) return undefined;
  if (provider === "responses") return responsesJsonTurn(body, text);
  return provider === "openai" ? openaiTurn(body) : anthropicTurn(body);
}

function openaiTurn(body: Record<string, unknown>): AssistantTurn | undefined {
  const { choices } = body;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const choice: unknown = choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  const { content, tool_calls: toolCalls } = choice.message;
  const toolUses: ToolUse[] = [];
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) return undefined;
    for (const call of toolCalls) {
      const use = openaiToolUse(call);
      if (use === undefined) return undefined;
      toolUses.push(use);
    }
  }
  const message: Record<string, unknown> = { role: "assistant", content: content ?? null };
  if (toolUses.length > 0) message.tool_calls = toolCalls;
  return { message, toolUses };
}

function openaiToolUse(call: unknown): ToolUse | undefined {
  if (!isRecord(call) || typeof call.id !== "string" || !isRecord(call.function)) return undefined;
  const { name, arguments: args } = call.function;
  if (typeof name !== "string") return undefined;
  return { callId: call.id, name, input: typeof args === "string" ? parseArguments(args) : args };
}

function anthropicTurn(body: Record<string, unknown>): AssistantTurn | undefined {
  const { content } = body;
  if (body.role !== "assistant" || !Array.isArray(content)) return undefined;
  const toolUses: ToolUse[] = [];
  for (const block of content) {
    if (!isRecord(block) || block.type !== "tool_use") continue;
    if (typeof block.id !== "string" || typeof block.name !== "string") return undefined;
    toolUses.push({ callId: block.id, name: block.name, input: block.input });
  }
  return { message: { role: "assistant", content }, toolUses };
}
