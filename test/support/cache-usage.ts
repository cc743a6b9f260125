import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import {
  readDeploymentLifetime,
  withDeploymentLifetime,
} from "../../src/cache/deployment-lifetime.js";
import type { LearnedLifetime } from "../../src/cache/lifetime.js";
import type { Store } from "../../src/store/types.js";
import {
  anthropicEvents,
  anthropicJson,
  type BlockSpec,
  type CallSpec,
  openaiEvents,
  openaiJson,
} from "./model-replies.js";
import {
  anthropicConversation,
  openaiConversation,
  responsesConversation,
} from "./proxy-harness.js";
import { type ItemSpec, responsesReply } from "./responses-replies.js";
import type { ScriptedReply } from "./scripted-upstream.js";

/** What the scripted server says it served from its prompt cache. */
export interface Served {
  readonly cached: number;
  readonly prompt: number;
}

export type UsageProvider = "openai" | "anthropic" | "responses";

/**
 * A final answer whose usage reports `served`, as each provider spells it: Chat Completions
 * `prompt_tokens_details.cached_tokens` (streamed: a last chunk of usage, as with
 * `stream_options.include_usage`), Anthropic `cache_read_input_tokens` beside the uncached
 * `input_tokens` (streamed: in `message_start`), Responses `input_tokens_details.cached_tokens`
 * (streamed: in `response.completed`). With `calls`, the answer is those tool calls alone.
 */
export function servedReply(
  provider: UsageProvider,
  streaming: boolean,
  served: Served,
  calls: readonly CallSpec[] = [],
): ScriptedReply {
  const text = "Looked at it.";
  if (provider === "responses") {
    const items: ItemSpec[] =
      calls.length > 0
        ? calls.map((call) => ({ type: "call" as const, ...call }))
        : [{ type: "text", text }];
    return responsesReply(streaming, items, {
      usage: { input: served.prompt, cached: served.cached },
    });
  }
  if (provider === "openai") {
    const usage = {
      prompt_tokens: served.prompt,
      completion_tokens: 5,
      total_tokens: served.prompt + 5,
      prompt_tokens_details: { cached_tokens: served.cached },
    };
    if (!streaming) {
      const reply = openaiJson(calls.length > 0 ? null : text, calls);
      return { json: { ...(reply.json as Record<string, unknown>), usage } };
    }
    const events = openaiEvents(calls.length > 0 ? [] : [text], calls);
    const done = events.pop();
    const last = {
      data: {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: "gpt-test",
        choices: [],
        usage,
      },
    };
    return { sse: done ? [...events, last, done] : [...events, last] };
  }
  const usage = {
    input_tokens: served.prompt - served.cached,
    cache_read_input_tokens: served.cached,
    cache_creation_input_tokens: 0,
    output_tokens: 5,
  };
  const blocks: BlockSpec[] =
    calls.length > 0
      ? calls.map((call) => ({ type: "tool_use" as const, ...call }))
      : [{ type: "text", text }];
  if (!streaming) {
    const reply = anthropicJson(blocks);
    return { json: { ...(reply.json as Record<string, unknown>), usage } };
  }
  const events = anthropicEvents(blocks).map((event) => {
    const data = event.data as Record<string, unknown>;
    if (data.type !== "message_start") return event;
    const message = data.message as Record<string, unknown>;
    return { ...event, data: { ...data, message: { ...message, usage } } };
  });
  return { sse: events };
}

/** The harness conversation after `turns` more exchanges: each request extends the last. */
export function openaiTurns(turns: number): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const body = openaiConversation();
  for (let turn = 0; turn < turns; turn++) {
    body.messages.push(
      { role: "assistant", content: `Answer ${turn}.` },
      { role: "user", content: `Question ${turn + 1}?` },
    );
  }
  return body;
}

export function anthropicTurns(turns: number): Anthropic.MessageCreateParamsNonStreaming {
  const body = anthropicConversation();
  for (let turn = 0; turn < turns; turn++) {
    body.messages.push(
      { role: "assistant", content: `Answer ${turn}.` },
      { role: "user", content: `Question ${turn + 1}?` },
    );
  }
  return body;
}

export function responsesTurns(turns: number): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const body = responsesConversation();
  const input = body.input as OpenAI.Responses.ResponseInputItem[];
  for (let turn = 0; turn < turns; turn++) {
    input.push(
      { role: "assistant", content: `Answer ${turn}.` },
      { role: "user", content: `Question ${turn + 1}?` },
    );
  }
  return body;
}

/** The learned lifetimes a next request of `session` is decided by, read as the compactor does. */
export async function learnedLifetimes(
  store: Store,
  session: string,
): Promise<LearnedLifetime | undefined> {
  const [ledger, deployment] = await Promise.all([
    store.ledger(session),
    readDeploymentLifetime(store),
  ]);
  return withDeploymentLifetime(ledger, deployment).learned;
}
