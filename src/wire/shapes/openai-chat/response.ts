import { type AssistantTurn, parseArguments, type ToolUse } from "../../../expand/turn.js";
import { isRecord } from "../../is-record.js";

/**
 * The turn of a non-streaming chat completion: its one choice's message, with its tool calls;
 * undefined for several choices or a call that cannot be read.
 */
export function openaiTurn(body: Record<string, unknown>): AssistantTurn | undefined {
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
