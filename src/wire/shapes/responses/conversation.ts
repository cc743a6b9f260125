import { isRecord } from "../../is-record.js";
import type { ConversationReading } from "../../shape.js";
import { isMessage, itemText } from "./items.js";

/** Items the model wrote: an earlier turn of the assistant. */
const MODEL_ITEMS = new Set([
  "function_call",
  "custom_tool_call",
  "reasoning",
  "compaction",
  "local_shell_call",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "image_generation_call",
  "code_interpreter_call",
  "mcp_call",
]);

/**
 * A Responses conversation as §4a "Live sessions" reads it: the prompt's head is the tools, the
 * `instructions` and the `prompt_cache_key` the provider routes its cache by; an earlier turn is
 * an assistant message or an item the model wrote, or a history the server holds
 * (`previous_response_id`); a trailing `compaction_trigger` item asks for a compaction.
 */
export const responsesConversation: ConversationReading = {
  promptHead: ["tools", "instructions", "prompt_cache_key"],
  hasAssistantTurn(body, items) {
    if (typeof body.previous_response_id === "string") return true;
    return items.some(
      (item) =>
        isRecord(item) &&
        (item.role === "assistant" ||
          (typeof item.type === "string" && MODEL_ITEMS.has(item.type))),
    );
  },
  lastUserText(items) {
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index];
      if (isRecord(item) && isMessage(item) && item.role === "user") return itemText(item);
    }
    return "";
  },
  endsWithCompactionTrigger(items) {
    const last = items.at(-1);
    return isRecord(last) && last.type === "compaction_trigger";
  },
};
