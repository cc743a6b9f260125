import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { type ServerType, serve } from "@hono/node-server";
import type { Hono } from "hono";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createApp } from "../../src/app.js";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import type { BailReason, ProxyEvents } from "../../src/proxy/events.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { MASK_BY_AGE } from "./app.js";
import { TEST_HASH_KEY, testIdOf } from "./hash-key.js";
import { ScriptedUpstream } from "./scripted-upstream.js";

/** What the loop reported through its hooks. */
export interface EventLog {
  rounds: number;
  resolved: number;
  misses: number;
  bails: BailReason[];
  responses: { provider: string; streamed: boolean }[];
}

export interface Harness {
  readonly upstream: ScriptedUpstream;
  readonly app: Hono;
  readonly store: Store;
  readonly events: EventLog;
  /** Port of the proxy served on a real loopback socket. */
  readonly port: number;
  /** Forgets recorded requests, queued replies and events between tests. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * The proxy served on an ephemeral loopback port in front of a scripted upstream, with a memory
 * store and the `mask` pipeline by age (MASK_BY_AGE: the oldest of four large tool outputs
 * becomes a marker), its
 * session ledger on `options.clock` when given.
 */
export async function startHarness(
  overrides: ConfigInput = {},
  options: { readonly clock?: () => number } = {},
): Promise<Harness> {
  const upstream = await ScriptedUpstream.start();
  const config = configSchema.parse({
    pipeline: ["mask"],
    ...MASK_BY_AGE,
    ...overrides,
    upstream: {
      ...overrides.upstream,
      openai: { base_url: `http://127.0.0.1:${upstream.port}/v1`, ...overrides.upstream?.openai },
      anthropic: {
        base_url: `http://127.0.0.1:${upstream.port}`,
        ...overrides.upstream?.anthropic,
      },
    },
  });
  const store = createStore(config.store);
  const events: EventLog = { rounds: 0, resolved: 0, misses: 0, bails: [], responses: [] };
  const proxyEvents: ProxyEvents = {
    onRound: () => events.rounds++,
    onResolved: () => events.resolved++,
    onMiss: () => events.misses++,
    onBail: (reason) => events.bails.push(reason),
    onResponse: (info) => events.responses.push(info),
  };
  const app = createApp({
    config,
    store,
    proxyEvents,
    hashKey: TEST_HASH_KEY,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const server = await new Promise<ServerType>((resolve) => {
    const listening = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
      resolve(listening),
    );
  });
  return {
    upstream,
    app,
    store,
    events,
    port: (server.address() as AddressInfo).port,
    reset() {
      upstream.reset();
      Object.assign(events, { rounds: 0, resolved: 0, misses: 0, bails: [], responses: [] });
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
      await store.close();
    },
  };
}

/**
 * A harness for the enclosing describe block: started before its tests, reset before each, closed
 * after them. `current` is the running harness.
 */
export function sharedHarness(): { readonly current: Harness } {
  const shared: { current?: Harness } = {};
  const current = () => {
    if (shared.current === undefined) throw new Error("the harness starts in beforeAll");
    return shared.current;
  };
  beforeAll(async () => {
    shared.current = await startHarness();
  });
  afterAll(() => current().close());
  beforeEach(() => current().reset());
  return {
    get current() {
      return current();
    },
  };
}

/**
 * Request options giving each call a session of its own (`PREFIX-N`), so what one test expanded
 * stays out of the next; its first request meets a cold cache, so its older outputs are masked
 * (§4a).
 */
export function coldSessions(prefix: string): () => { headers: Record<string, string> } {
  let sessions = 0;
  return () => ({
    headers: {
      "x-context-guru-session": `${prefix}-${++sessions}`,
      "x-context-guru-cache": "cold",
    },
  });
}

/** A large, distinct tool output (well over mask's 100-token floor). */
export function toolOutput(index: number): string {
  return Array.from(
    { length: 30 },
    (_, line) =>
      `src/module_${index}.py:${line + 1}: value_${index}_${line} = compute(${line}, "${index}")`,
  ).join("\n");
}

export const hashOf = testIdOf;
/** The id mask gives the oldest output of the conversations below. */
export const MASKED_ID = hashOf(toolOutput(0));
/** An id no request carries. */
export const FOREIGN_ID = "0123456789abcdef";

const COUNT = 4;

/** An OpenAI chat request with four tool outputs and a declared `bash` tool. */
export function openaiConversation(): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Find the bug in the modules." },
  ];
  for (let index = 0; index < COUNT; index++) {
    const id = `call_bash_${index}`;
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id,
            type: "function",
            function: { name: "bash", arguments: JSON.stringify({ command: `cat m${index}.py` }) },
          },
        ],
      },
      { role: "tool", tool_call_id: id, content: toolOutput(index) },
    );
  }
  return {
    model: "gpt-test",
    messages,
    tools: [
      {
        type: "function",
        function: {
          name: "bash",
          description: "Run a shell command",
          parameters: { type: "object", properties: { command: { type: "string" } } },
        },
      },
    ],
  };
}

/** The same conversation as a Responses request: `input` items, the flat `bash` tool. */
export function responsesConversation(): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const input: OpenAI.Responses.ResponseInputItem[] = [
    { type: "message", role: "user", content: "Find the bug in the modules." },
  ];
  for (let index = 0; index < COUNT; index++) {
    const id = `call_bash_${index}`;
    input.push(
      {
        type: "function_call",
        call_id: id,
        name: "bash",
        arguments: JSON.stringify({ command: `cat m${index}.py` }),
      },
      { type: "function_call_output", call_id: id, output: toolOutput(index) },
    );
  }
  return {
    model: "gpt-test",
    instructions: "You are a coding agent.",
    input,
    tools: [
      {
        type: "function",
        name: "bash",
        description: "Run a shell command",
        parameters: { type: "object", properties: { command: { type: "string" } } },
        strict: false,
      },
    ],
  };
}

/** The same conversation in Anthropic Messages shape. */
export function anthropicConversation(): Anthropic.MessageCreateParamsNonStreaming {
  const messages: Anthropic.MessageParam[] = [
    { role: "user", content: "Find the bug in the modules." },
  ];
  for (let index = 0; index < COUNT; index++) {
    const id = `toolu_bash_${index}`;
    messages.push(
      {
        role: "assistant",
        content: [{ type: "tool_use", id, name: "bash", input: { command: `cat m${index}.py` } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id, content: toolOutput(index) }],
      },
    );
  }
  return {
    model: "claude-test",
    max_tokens: 1024,
    system: "You are a coding agent.",
    messages,
    tools: [
      {
        name: "bash",
        description: "Run a shell command",
        input_schema: { type: "object", properties: { command: { type: "string" } } },
      },
    ],
  };
}

/** The official OpenAI client against the proxy served on `server.port`, without retries. */
export function openaiClient(server: { readonly port: number }, apiKey = "sk-client"): OpenAI {
  return new OpenAI({ baseURL: `http://127.0.0.1:${server.port}/v1`, apiKey, maxRetries: 0 });
}

/** The official Anthropic client against the proxy served on `server.port`, without retries. */
export function anthropicClient(
  server: { readonly port: number },
  credentials: { apiKey?: string; authToken?: string } = { apiKey: "sk-ant-client" },
): Anthropic {
  return new Anthropic({
    baseURL: `http://127.0.0.1:${server.port}`,
    apiKey: null,
    authToken: null,
    ...credentials,
    maxRetries: 0,
  });
}
