import { isRecord } from "../is-record.js";
import type { ConversationReading } from "../shape.js";
import { contentText } from "./content-text.js";

/**
 * The conversation of a chat shape (OpenAI chat, Anthropic messages) as §4a "Live sessions"
 * reads it: an earlier assistant turn is an `assistant` message; nothing asks for a compaction
 * but the words of the last user message.
 */
export function chatConversation(promptHead: readonly string[]): ConversationReading {
  return {
    promptHead,
    hasAssistantTurn: (_body, items) =>
      items.some((message) => isRecord(message) && message.role === "assistant"),
    lastUserText(items) {
      for (let index = items.length - 1; index >= 0; index--) {
        const message = items[index];
        if (isRecord(message) && message.role === "user") return contentText(message.content);
      }
      return "";
    },
    endsWithCompactionTrigger: () => false,
  };
}
