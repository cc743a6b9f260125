import type { ToolResult } from "../../../expand/continuation.js";
import {
  EXPAND_TOOL_DESCRIPTION,
  EXPAND_TOOL_NAME,
  EXPAND_TOOL_PARAMETERS,
} from "../../../expand/tool.js";
import type { AssistantTurn } from "../../../expand/turn.js";
import { appendToMessages } from "../../chat/continuation.js";

/** The expand tool (§8.1) as a Messages `tools[]` entry. */
export const ANTHROPIC_EXPAND_TOOL = {
  name: EXPAND_TOOL_NAME,
  description: EXPAND_TOOL_DESCRIPTION,
  input_schema: EXPAND_TOOL_PARAMETERS,
} as const;

/**
 * The next round (§8.2): the assistant message, then one user message holding a `tool_result`
 * block per call, in call order.
 */
export function anthropicContinuation(
  text: string,
  turn: AssistantTurn,
  results: readonly ToolResult[],
): string | undefined {
  const message = {
    role: "user",
    content: results.map((result) => ({
      type: "tool_result",
      tool_use_id: result.callId,
      content: result.content,
    })),
  };
  return appendToMessages(text, turn, [message]);
}
