import { isRecord } from "../wire/is-record.js";

const ASKS_FOR_SUMMARY = [
  /\b(?:detailed|comprehensive|thorough|complete|full)\s+summary\s+of\s+(?:the|this|our)\s+(?:entire\s+|whole\s+)?conversation\b/i,
  /\bsummari[sz]e\s+(?:the|this|our)\s+(?:entire\s+|whole\s+)?conversation\b/i,
];

/**
 * True when the last user message (Responses: user message item) asks for a detailed summary of the conversation: the agent is
 * compacting its own history, and that request must see the history as it is.
 */
export function isSummaryRequest(body: unknown): boolean {
  if (!isRecord(body)) return false;
  // Chat shapes hold the conversation in `messages`, Responses bodies in `input` items.
  const messages: unknown = body.messages ?? body.input;
  if (!Array.isArray(messages)) return false;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (!isRecord(message) || message.role !== "user") continue;
    const text = messageText(message.content);
    return ASKS_FOR_SUMMARY.some((pattern) => pattern.test(text));
  }
  return false;
}

function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      isRecord(part) &&
      (part.type === "text" || part.type === "input_text") &&
      typeof part.text === "string"
        ? part.text
        : "",
    )
    .join("\n");
}
