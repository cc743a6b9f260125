import type { MessageView } from "../../../pipeline/types.js";
import { contentText } from "../../chat/content-text.js";
import { isRecord } from "../../is-record.js";

/** A chat message as the model reads it: its text, and each tool call as `call NAME(ARGUMENTS)`. */
export function openaiView(message: unknown, index: number): MessageView {
  if (!isRecord(message)) return { index, role: "", text: "", callIds: [], resultIds: [] };
  const role = typeof message.role === "string" ? message.role : "";
  const parts: string[] = [];
  const content = contentText(message.content);
  if (content !== "") parts.push(content);
  const callIds: string[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call)) continue;
      if (typeof call.id === "string") callIds.push(call.id);
      const fn = isRecord(call.function) ? call.function : {};
      const name = typeof fn.name === "string" ? fn.name : "?";
      const args = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments);
      parts.push(`call ${name}(${args ?? ""})`);
    }
  }
  const resultIds =
    role === "tool" && typeof message.tool_call_id === "string" ? [message.tool_call_id] : [];
  return { index, role, text: parts.join("\n"), callIds, resultIds };
}
