import { isRecord } from "./detect.js";
import type { Provider } from "./types.js";

/** Responses items the model wrote: an earlier turn of the assistant. */
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
 * Whether a conversation holds an earlier turn of the assistant (§4a "Live sessions"): an
 * assistant message, or in a Responses body an item the model wrote, or a history the server
 * holds (`previous_response_id`). A conversation without one is a session's first request.
 */
export function hasAssistantTurn(
  provider: Provider,
  body: Readonly<Record<string, unknown>>,
  conversation: readonly unknown[],
): boolean {
  if (provider === "responses" && typeof body.previous_response_id === "string") return true;
  for (const message of conversation) {
    if (!isRecord(message)) continue;
    if (message.role === "assistant") return true;
    if (provider === "responses" && typeof message.type === "string") {
      if (MODEL_ITEMS.has(message.type)) return true;
    }
  }
  return false;
}
