import { chatConversation } from "../../chat/conversation.js";
import { chatSessionTexts } from "../../chat/session-texts.js";
import type { WireShape } from "../../shape.js";
import { OPENAI_EXPAND_TOOL, openaiContinuation } from "./expand.js";
import { openaiTurn } from "./response.js";
import { OpenAIStream } from "./stream.js";
import { openaiStrings } from "./strings.js";
import { chatUsage } from "./usage.js";
import { openaiView } from "./view.js";

/**
 * OpenAI Chat Completions (§3): the conversation is `messages`; tool outputs are
 * `{"role":"tool","tool_call_id","content"}` messages. It is the shape of any body that no shape
 * before it in the registry claims.
 */
export const openaiChat: WireShape<"openai"> = {
  name: "openai",
  proxyRoute: "/v1/chat/completions",
  detects: () => true,
  scan: { conversation: "messages", itemOutput: false },
  sessionTexts: chatSessionTexts,
  conversation: chatConversation(["tools", "prompt_cache_key"]),
  strings: openaiStrings,
  view: openaiView,
  summaryMessage: (role, text) => JSON.stringify({ role, content: text }),
  expandTool: JSON.stringify(OPENAI_EXPAND_TOOL),
  response: { json: openaiTurn, stream: () => new OpenAIStream() },
  continuation: openaiContinuation,
  usage: chatUsage,
  upstream: {
    family: "openai",
    path: "/chat/completions",
    gatewayCredential: (key) => ["authorization", `Bearer ${key}`],
  },
  pricing: "openai",
};
