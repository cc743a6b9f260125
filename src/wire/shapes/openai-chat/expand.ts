import type { ToolResult } from "../../../expand/continuation.js";
import {
  EXPAND_TOOL_DESCRIPTION,
  EXPAND_TOOL_NAME,
  EXPAND_TOOL_PARAMETERS,
} from "../../../expand/tool.js";
import type { AssistantTurn } from "../../../expand/turn.js";
import { appendToMessages } from "../../chat/continuation.js";

/** The expand tool (§8.1) as a chat `tools[]` entry. */
export const OPENAI_EXPAND_TOOL = {
  type: "function",
  function: {
    name: EXPAND_TOOL_NAME,
    description: EXPAND_TOOL_DESCRIPTION,
    parameters: EXPAND_TOOL_PARAMETERS,
  },
} as const;

/** The next round (§8.2): the assistant message, then one `role: "tool"` message per call. */
export function openaiContinuation(
  text: string,
  turn: AssistantTurn,
  results: readonly ToolResult[],
): string | undefined {
  const messages = results.map((result) => ({
    role: "tool",
    tool_call_id: result.callId,
    content: result.content,
  }));
  return appendToMessages(text, turn, messages);
}
