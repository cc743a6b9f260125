import { EXPAND_TOOL_NAME } from "./tool.js";

/** A tool call the model made in its turn. */
export interface ToolUse {
  /** The call id (`tool_calls[].id` / `tool_use.id`). */
  readonly callId: string;
  readonly name: string;
  /** The parsed arguments, or undefined when they are not valid JSON. */
  readonly input: unknown;
}

/** The model's turn, as it must be appended to the conversation for the next round. */
export interface AssistantTurn {
  /** The assistant message value (OpenAI `message`, Anthropic `{role, content}`). */
  readonly message: Readonly<Record<string, unknown>>;
  readonly toolUses: readonly ToolUse[];
}

/** One expand call: its call id and the marker id it asks for (undefined when malformed). */
export interface ExpandCall {
  readonly callId: string;
  readonly id: string | undefined;
}

export interface TurnCalls {
  readonly expand: readonly ExpandCall[];
  /** Calls of any other tool; with any of them the turn belongs to the client. */
  readonly others: number;
}

/** Splits a turn's tool calls into expand calls (in call order) and the rest. */
export function classifyCalls(turn: AssistantTurn): TurnCalls {
  const expand: ExpandCall[] = [];
  let others = 0;
  for (const use of turn.toolUses) {
    if (use.name !== EXPAND_TOOL_NAME) {
      others++;
      continue;
    }
    const id =
      typeof use.input === "object" && use.input !== null
        ? (use.input as Record<string, unknown>).id
        : undefined;
    expand.push({ callId: use.callId, id: typeof id === "string" ? id : undefined });
  }
  return { expand, others };
}
