import { chatConversation } from "../../chat/conversation.js";
import { chatSessionTexts } from "../../chat/session-texts.js";
import { isRecord } from "../../is-record.js";
import type { WireShape } from "../../shape.js";
import { ANTHROPIC_EXPAND_TOOL, anthropicContinuation } from "./expand.js";
import { anthropicTurn } from "./response.js";
import { AnthropicStream } from "./stream.js";
import { anthropicStrings } from "./strings.js";
import { anthropicUsage } from "./usage.js";
import { anthropicView } from "./view.js";

/**
 * Anthropic Messages (§3): the conversation is `messages`; tool outputs are `tool_result` blocks
 * inside user messages, paired with `tool_use` blocks.
 */
export const anthropicMessages: WireShape<"anthropic"> = {
  name: "anthropic",
  proxyRoute: "/v1/messages",
  detects,
  scan: { conversation: "messages", itemOutput: false },
  sessionTexts: chatSessionTexts,
  conversation: chatConversation(["tools", "system"]),
  strings: anthropicStrings,
  view: anthropicView,
  summaryMessage: (role, text) => JSON.stringify({ role, content: [{ type: "text", text }] }),
  expandTool: JSON.stringify(ANTHROPIC_EXPAND_TOOL),
  response: { json: anthropicTurn, stream: () => new AnthropicStream() },
  continuation: anthropicContinuation,
  usage: anthropicUsage,
  upstream: {
    family: "anthropic",
    path: "/v1/messages",
    gatewayCredential: (key) => ["x-api-key", key],
  },
  pricing: "anthropic",
};

/** A top-level `system` string or array, or any `tool_use` / `tool_result` content block (§2). */
function detects(body: Record<string, unknown>): boolean {
  const { system, messages } = body;
  if (typeof system === "string" || Array.isArray(system)) return true;
  if (!Array.isArray(messages)) return false;
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (isRecord(block) && (block.type === "tool_use" || block.type === "tool_result")) {
        return true;
      }
    }
  }
  return false;
}
