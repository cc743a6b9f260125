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
export type AssistantTurn = MessageTurn | ResponseTurn;

/** A chat-shaped turn: one assistant message. */
export interface MessageTurn {
  /** The assistant message value (OpenAI `message`, Anthropic `{role, content}`). */
  readonly message: Readonly<Record<string, unknown>>;
  readonly toolUses: readonly ToolUse[];
}

/**
 * A Responses turn: the response's output items, carried back into `input` as the upstream wrote
 * them (reasoning items and their `encrypted_content` byte for byte), or chained on its id.
 */
export interface ResponseTurn {
  /** Each output item's JSON text, in output order. */
  readonly items: readonly string[];
  /** The response's id, for `previous_response_id`; undefined when it carried none. */
  readonly responseId: string | undefined;
  /** Function calls by name; any other call item (custom or built-in tools) by its type. */
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

/** Tool-call arguments text as a value; undefined when it is not JSON (a truncated call). */
export function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
