import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicBody, openaiBody } from "../support/bodies.js";
import {
  anthropicEvents,
  anthropicJson,
  expandCall,
  openaiEvents,
  openaiJson,
} from "../support/model-replies.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { ScriptedUpstream, sseText } from "../support/scripted-upstream.js";
import {
  compactOn,
  generatedOutputs,
  type Replica,
  redisSuiteSkipped,
  replica,
  whenReady,
} from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis proxy-loop tests");
const FINAL = "The build fails in step 3.";

type Message = { role: string; content?: unknown; tool_call_id?: string };
type Block = { type: string; tool_use_id?: string; content?: unknown };

/** The cases: a provider's body, its route on B, and the scripted model's two answers. */
const cases = [false, true].flatMap((streaming) => [
  {
    provider: "openai",
    streaming,
    path: "/v1/chat/completions",
    body: (seed: string) =>
      openaiBody(generatedOutputs(seed), {
        tools: [{ type: "function", function: { name: "Bash", parameters: {} } }],
        ...(streaming ? { stream: true } : {}),
      }),
    replies: (id: string) => {
      const call = expandCall(id);
      return streaming
        ? [{ sse: openaiEvents([], [call]) }, { sse: openaiEvents([FINAL]) }]
        : [openaiJson(null, [call]), openaiJson(FINAL)];
    },
    /** The content the proxy answered the expand call with, from the second upstream request. */
    answered: (json: unknown, callId: string) =>
      (json as { messages: Message[] }).messages.find(
        (message) => message.role === "tool" && message.tool_call_id === callId,
      )?.content,
  },
  {
    provider: "anthropic",
    streaming,
    path: "/v1/messages",
    body: (seed: string) =>
      anthropicBody(generatedOutputs(seed), {
        tools: [{ name: "Bash", input_schema: { type: "object" } }],
        ...(streaming ? { stream: true } : {}),
      }),
    replies: (id: string) => {
      const call = { type: "tool_use" as const, ...expandCall(id) };
      const final = { type: "text" as const, text: FINAL };
      return streaming
        ? [{ sse: anthropicEvents([call]) }, { sse: anthropicEvents([final]) }]
        : [anthropicJson([call]), anthropicJson([final])];
    },
    answered: (json: unknown, callId: string) =>
      (json as { messages: { content: unknown }[] }).messages
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as Block[]) : []))
        .find((block) => block.type === "tool_result" && block.tool_use_id === callId)?.content,
  },
]);

describe.skipIf(skipped)("the proxy loop on one replica resolves markers of another", () => {
  let server: RedisServer;
  let upstream: ScriptedUpstream;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    server = await startRedisServer();
    upstream = await ScriptedUpstream.start();
    a = await replica(server.url);
    b = await replica(server.url, {
      upstream: {
        openai: { base_url: `http://127.0.0.1:${upstream.port}/v1` },
        anthropic: { base_url: `http://127.0.0.1:${upstream.port}` },
      },
    });
    await Promise.all([whenReady(a), whenReady(b)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), upstream?.close()]);
    await server?.close();
  });
  beforeEach(() => upstream.reset());

  it.each(cases)(
    "$provider (stream $streaming): the next turn on B replays A's markers and the loop expands them from Redis",
    async ({ provider, streaming, path, body, replies, answered }) => {
      const seed = `${provider}-${streaming}`;
      const session = `loop-${seed}`;
      // Turn one meets replica A (cold); the agent re-sends the same history to B, warm.
      const compacted = await compactOn(a, body(seed), session);
      // The marker of a build log whose original text is known here.
      const original = generatedOutputs(seed).find((output) =>
        compacted.ids.includes(a.idOf(output)),
      );
      expect(original).toBeDefined();
      const id = a.idOf(original ?? "");
      upstream.reply(...replies(id));

      const response = await b.app.request(path, {
        method: "POST",
        body: body(seed),
        headers: {
          "content-type": "application/json",
          "x-context-guru-session": session,
          authorization: "Bearer sk-client",
          "x-api-key": "sk-client",
        },
      });
      const text = await response.text();
      expect(response.headers.get("x-context-guru-cache")).toBe("warm");

      const final = replies(id)[1];
      expect(response.status).toBe(200);
      // The client gets the model's final answer as the upstream sent it, and no expand call.
      expect(text).toBe(final?.sse ? final.sse.map(sseText).join("") : JSON.stringify(final?.json));
      expect(upstream.requests).toHaveLength(2);
      const [first, second] = upstream.requests;
      // B sent exactly what A returned: the ledger on Redis froze the conversation's bytes.
      expect(first?.body).toBe(compacted.text);
      expect(first?.body).toContain(`<<cg:${id}>>`);
      expect(answered(second?.json, expandCall(id).id)).toBe(original);
    },
  );

  it("an id A wrote for another session does not resolve on B: the call is answered as a miss", async () => {
    const seed = "foreign";
    const compacted = await compactOn(a, cases[0]?.body(seed) ?? "", "writer");
    const original = generatedOutputs(seed).find((output) =>
      compacted.ids.includes(a.idOf(output)),
    );
    expect(original).toBeDefined();
    const id = a.idOf(original ?? "");
    upstream.reply(...(cases[0]?.replies(id) ?? []));
    const response = await b.app.request("/v1/chat/completions", {
      method: "POST",
      body: compacted.text,
      headers: { "content-type": "application/json", "x-context-guru-session": "reader" },
    });
    const json = (await response.json()) as { choices: { message: { content?: string } }[] };
    // The original stays with its session: the model hears the placeholder and answers on.
    expect([upstream.requests.length, json.choices[0]?.message.content]).toEqual([2, FINAL]);
    const continuation = upstream.requests[1];
    expect(continuation?.body).not.toContain((original ?? "").slice(0, 200));
    expect(cases[0]?.answered(continuation?.json, expandCall(id).id)).toBe(
      `[expand: original for id ${id} is no longer available]`,
    );
  });
});
