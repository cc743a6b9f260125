/**
 * The scripted model's Anthropic Messages answers: a message of thinking (with its signature),
 * text and tool_use blocks, as one JSON body or as the event stream the API sends
 * (`message_start`, `ping`, per block `content_block_start` / `_delta` / `_stop`,
 * `message_delta`, `message_stop`).
 */

export type AnthropicBlock =
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: Record<string, unknown>;
    };

export interface AnthropicUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly output_tokens: number;
}

export interface AnthropicMessage {
  readonly id: string;
  readonly model: string;
  readonly blocks: readonly AnthropicBlock[];
  readonly usage: AnthropicUsage;
}

const stopReason = (message: AnthropicMessage) =>
  message.blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";

export function anthropicJson(message: AnthropicMessage): string {
  return JSON.stringify({
    id: message.id,
    type: "message",
    role: "assistant",
    model: message.model,
    content: message.blocks,
    stop_reason: stopReason(message),
    stop_sequence: null,
    usage: message.usage,
  });
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Splits a text in two halves (a delta stream of more than one event), or keeps it whole. */
function halves(text: string): string[] {
  if (text.length < 2) return [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}

function blockEvents(block: AnthropicBlock, index: number): string[] {
  const events: string[] = [];
  const delta = (value: Record<string, unknown>) =>
    events.push(event("content_block_delta", { type: "content_block_delta", index, delta: value }));
  if (block.type === "thinking") {
    events.push(
      event("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      }),
    );
    for (const part of halves(block.thinking)) delta({ type: "thinking_delta", thinking: part });
    delta({ type: "signature_delta", signature: block.signature });
  } else if (block.type === "text") {
    events.push(
      event("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      }),
    );
    for (const part of halves(block.text)) delta({ type: "text_delta", text: part });
  } else {
    events.push(
      event("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      }),
    );
    for (const part of halves(JSON.stringify(block.input))) {
      delta({ type: "input_json_delta", partial_json: part });
    }
  }
  events.push(event("content_block_stop", { type: "content_block_stop", index }));
  return events;
}

/** The message as the API streams it. */
export function anthropicStream(message: AnthropicMessage): string {
  const { usage } = message;
  return [
    event("message_start", {
      type: "message_start",
      message: {
        id: message.id,
        type: "message",
        role: "assistant",
        model: message.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    event("ping", { type: "ping" }),
    ...message.blocks.flatMap(blockEvents),
    event("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason(message), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    event("message_stop", { type: "message_stop" }),
  ].join("");
}
