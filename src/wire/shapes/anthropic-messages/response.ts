import type { AssistantTurn, ToolUse } from "../../../expand/turn.js";
import { isRecord } from "../../is-record.js";

/** The turn of a non-streaming Messages response: its content blocks, `tool_use` ones as calls. */
export function anthropicTurn(body: Record<string, unknown>): AssistantTurn | undefined {
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
