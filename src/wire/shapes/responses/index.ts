import type { WireShape } from "../../shape.js";
import { responsesContinuation } from "./continuation.js";
import { responsesConversation } from "./conversation.js";
import { RESPONSES_EXPAND_TOOL } from "./expand-tool.js";
import { responsesJsonTurn } from "./response.js";
import { responsesSessionTexts } from "./session-texts.js";
import { ResponsesStream } from "./stream.js";
import { responsesStrings } from "./strings.js";
import { responsesUsage } from "./usage.js";
import { responsesView } from "./view.js";

/**
 * OpenAI Responses (§3): the conversation is the `input` array of items; tool outputs are the
 * `output` of `function_call_output` / `custom_tool_call_output` items. Items are never added,
 * removed or reordered, so it has no summary message. Sniffed (§2) from an `input` array and no
 * `messages`.
 */
export const openaiResponses: WireShape<"responses"> = {
  name: "responses",
  proxyRoute: "/v1/responses",
  detects: (body) => body.messages === undefined && Array.isArray(body.input),
  scan: { conversation: "input", itemOutput: true },
  sessionTexts: responsesSessionTexts,
  conversation: responsesConversation,
  strings: responsesStrings,
  view: responsesView,
  expandTool: JSON.stringify(RESPONSES_EXPAND_TOOL),
  response: { json: responsesJsonTurn, stream: () => new ResponsesStream() },
  continuation: responsesContinuation,
  usage: responsesUsage,
  upstream: {
    family: "openai",
    path: "/responses",
    gatewayCredential: (key) => ["authorization", `Bearer ${key}`],
  },
  pricing: "openai",
};
