import { isRecord } from "../is-record.js";

/**
 * Text of a chat message's content (OpenAI chat, Anthropic messages, an Anthropic `system`): the
 * string itself, or its text blocks joined by newlines.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block.type === "text" && typeof block.text === "string") {
      texts.push(block.text);
    }
  }
  return texts.join("\n");
}
