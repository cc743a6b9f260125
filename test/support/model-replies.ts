import type { ScriptedEvent, ScriptedReply } from "./scripted-upstream.js";

/** A tool call the scripted model makes. */
export interface CallSpec {
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** A content block of a scripted Anthropic reply. */
export type BlockSpec =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | ({ readonly type: "tool_use" } & CallSpec);

export const expandCall = (id: string, callId = `call_${id}`): CallSpec => ({
  id: callId,
  name: "context_guru_expand",
  input: { id },
});

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** A chat.completion body. */
export function openaiJson(content: string | null, calls: readonly CallSpec[] = []): ScriptedReply {
  const message: Record<string, unknown> = { role: "assistant", content, refusal: null };
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.input) },
    }));
  }
  return {
    json: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-test",
      choices: [
        { index: 0, message, logprobs: null, finish_reason: calls.length ? "tool_calls" : "stop" },
      ],
      usage,
    },
  };
}

/** chat.completion.chunk events: role, text in pieces, tool calls with arguments in two pieces. */
export function openaiEvents(
  texts: readonly string[],
  calls: readonly CallSpec[] = [],
): ScriptedEvent[] {
  const chunk = (delta: unknown, finish: string | null = null): ScriptedEvent => ({
    data: {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "gpt-test",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    },
  });
  const events = [chunk({ role: "assistant", content: "" })];
  for (const text of texts) events.push(chunk({ content: text }));
  calls.forEach((call, index) => {
    const args = JSON.stringify(call.input);
    const half = Math.floor(args.length / 2);
    events.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
    );
  });
  events.push(chunk({}, calls.length ? "tool_calls" : "stop"), { data: "[DONE]" });
  return events;
}

export const openaiStream = (texts: readonly string[], calls: readonly CallSpec[] = []) => ({
  sse: openaiEvents(texts, calls),
});

const anthropicUsage = { input_tokens: 10, output_tokens: 5 };

/** A Messages API body. */
export function anthropicJson(blocks: readonly BlockSpec[]): ScriptedReply {
  return {
    json: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: blocks,
      stop_reason: blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: anthropicUsage,
    },
  };
}

/** A Messages API event stream; text, thinking, signature and tool input arrive in pieces. */
export function anthropicEvents(blocks: readonly BlockSpec[]): ScriptedEvent[] {
  const event = (type: string, data: Record<string, unknown>): ScriptedEvent => ({
    event: type,
    data: { type, ...data },
  });
  const events = [
    event("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }),
    event("ping", {}),
  ];
  blocks.forEach((block, index) => {
    const delta = (payload: Record<string, unknown>) =>
      event("content_block_delta", { index, delta: payload });
    if (block.type === "text") {
      events.push(
        event("content_block_start", { index, content_block: { type: "text", text: "" } }),
      );
      for (const piece of halves(block.text))
        events.push(delta({ type: "text_delta", text: piece }));
    } else if (block.type === "thinking") {
      events.push(
        event("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }),
      );
      for (const piece of halves(block.thinking)) {
        events.push(delta({ type: "thinking_delta", thinking: piece }));
      }
      events.push(delta({ type: "signature_delta", signature: block.signature }));
    } else {
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
      );
      for (const piece of halves(JSON.stringify(block.input))) {
        events.push(delta({ type: "input_json_delta", partial_json: piece }));
      }
    }
    events.push(event("content_block_stop", { index }));
  });
  const toolUse = blocks.some((block) => block.type === "tool_use");
  events.push(
    event("message_delta", {
      delta: { stop_reason: toolUse ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
    event("message_stop", {}),
  );
  return events;
}

export const anthropicStream = (blocks: readonly BlockSpec[]) => ({ sse: anthropicEvents(blocks) });

function halves(text: string): string[] {
  const half = Math.floor(text.length / 2);
  return half === 0 ? [text] : [text.slice(0, half), text.slice(half)];
}
