import type { MessageView } from "../../../pipeline/types.js";
import { contentText } from "../../chat/content-text.js";
import { isRecord } from "../../is-record.js";

/**
 * A Messages message as the model reads it: its text blocks, each `tool_use` as
 * `call NAME(INPUT)`, each `tool_result` as `tool result: TEXT` (`tool error:` when `is_error`),
 * images and documents as a placeholder.
 */
export function anthropicView(message: unknown, index: number): MessageView {
  if (!isRecord(message)) return { index, role: "", text: "", callIds: [], resultIds: [] };
  const role = typeof message.role === "string" ? message.role : "";
  const { content } = message;
  if (!Array.isArray(content)) {
    return { index, role, text: contentText(content), callIds: [], resultIds: [] };
  }
  const parts: string[] = [];
  const callIds: string[] = [];
  const resultIds: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "tool_use") {
      if (typeof block.id === "string") callIds.push(block.id);
      const name = typeof block.name === "string" ? block.name : "?";
      parts.push(`call ${name}(${JSON.stringify(block.input) ?? ""})`);
    } else if (block.type === "tool_result") {
      if (typeof block.tool_use_id === "string") resultIds.push(block.tool_use_id);
      const label = block.is_error === true ? "tool error" : "tool result";
      parts.push(`${label}: ${contentText(block.content)}`);
    } else if (block.type === "image" || block.type === "document") {
      parts.push(`[${block.type}]`);
    }
  }
  return { index, role, text: parts.join("\n"), callIds, resultIds };
}
