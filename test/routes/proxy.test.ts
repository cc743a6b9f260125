import type { Hono } from "hono";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { MALFORMED_CALL, missPlaceholder } from "../../src/expand/continuation.js";
import { proxyRoutes } from "../../src/routes/proxy.js";
import { createStore } from "../../src/store/create.js";
import { sample } from "../observability/prometheus-text.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";
import { anthropicJson, expandCall, openaiJson } from "../support/model-replies.js";
import {
  MASKED_ID,
  openaiConversation,
  responsesConversation,
  toolOutput,
} from "../support/proxy-harness.js";
import { responsesJson } from "../support/responses-replies.js";
import { type ScriptedReply, ScriptedUpstream } from "../support/scripted-upstream.js";

const body = JSON.stringify(openaiConversation());
const post = (app: Hono, path: string, init: RequestInit = {}) =>
  app.request(path, {
    method: "POST",
    body,
    ...init,
    headers: {
      "content-type": "application/json",
      authorization: "Bearer sk-client",
      // Each body is decided whole, so its older outputs are masked (§4a).
      "x-context-guru-cache": "cold",
      ...init.headers,
    },
  });

describe("proxy routes in process", () => {
  let upstream: ScriptedUpstream;
  /** The last message of the request the upstream got in round `round` (0 = the first). */
  const lastMessage = (round: number) =>
    (upstream.requests[round]?.json as { messages: unknown[] } | undefined)?.messages.at(-1);
  const appWith = (overrides: ConfigInput = {}) => {
    const config = configSchema.parse({
      pipeline: ["mask"],
      ...overrides,
      upstream: {
        openai: { base_url: `http://127.0.0.1:${upstream.port}/v1/` },
        anthropic: { base_url: `http://127.0.0.1:${upstream.port}` },
        ...overrides.upstream,
      },
    });
    return createApp({ config, store: createStore(config.store), hashKey: TEST_HASH_KEY });
  };

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
  });
  afterAll(() => upstream.close());
  beforeEach(() => upstream.reset());

  it.each(
    [
      [200, { json: { id: "chatcmpl-1", choices: [] } }, '{"id":"chatcmpl-1","choices":[]}'],
      [
        429,
        { status: 429, json: { error: { message: "slow down" } } },
        '{"error":{"message":"slow down"}}',
      ],
      [500, { status: 500, body: "upstream exploded" }, "upstream exploded"],
      [503, { status: 503, json: { error: "overloaded" } }, '{"error":"overloaded"}'],
    ].flatMap(([status, reply, text]) =>
      (["/v1/chat/completions", "/v1/responses"] as const).map(
        (path) => [status as number, path, reply as ScriptedReply, text as string] as const,
      ),
    ),
  )("relays upstream status %i on %s with its body", async (status, path, reply, text) => {
    upstream.reply(reply);

    const request = path === "/v1/responses" ? JSON.stringify(responsesConversation()) : body;
    const response = await post(appWith(), path, { body: request });

    expect(response.status).toBe(status);
    expect(await response.text()).toBe(text);
    expect(upstream.requests.map((request) => request.url)).toEqual([path]);
  });

  it("answers 502 without the upstream URL when the upstream resets the connection", async () => {
    upstream.reply({ reset: true });

    const response = await post(appWith(), "/v1/messages");

    expect(response.status).toBe(502);
    expect(await response.text()).toBe('{"error":"upstream connection failed"}');
  });

  it("answers 504 when no response starts within the first-byte timeout", async () => {
    upstream.reply({ delay: new Promise<void>(() => {}) });

    const response = await post(
      appWith({ upstream: { first_byte_timeout_ms: 50 } }),
      "/v1/messages",
    );

    expect(response.status).toBe(504);
    expect(await response.text()).toBe('{"error":"upstream sent no response within 50 ms"}');
  });

  it("answers 413 over the body limit without calling the upstream", async () => {
    const response = await post(appWith({ limits: { body_bytes: 100 } }), "/v1/chat/completions");

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "request body exceeds 100 bytes" });
    expect(upstream.requests).toHaveLength(0);
  });

  it("answers 400 for a body that is not UTF-8", async () => {
    const response = await post(appWith(), "/v1/chat/completions", {
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "request body is not valid UTF-8" });
  });

  it.each(["/v1/chat/completions", "/v1/messages"])(
    "answers 400 for a body that is not JSON on %s, without a call upstream",
    async (path) => {
      const response = await post(appWith(), path, { body: "{oops" });

      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "request body is not valid JSON" });
      expect(upstream.requests).toHaveLength(0);
    },
  );

  it("replaces the client's credentials with a configured gateway key", async () => {
    upstream.reply({ json: {} }, { json: {} }, { json: {} });
    const token = "proxy-token-0123456789abcdef";
    const app = appWith({
      auth: { token },
      upstream: {
        openai: { base_url: `http://127.0.0.1:${upstream.port}/v1`, api_key: "sk-gateway" },
        anthropic: { base_url: `http://127.0.0.1:${upstream.port}`, api_key: "sk-ant-gateway" },
      },
    });

    const headers = { authorization: `Bearer ${token}`, "x-api-key": "client" };
    await post(app, "/v1/chat/completions", { headers });
    await post(app, "/v1/messages", { headers });
    await post(app, "/v1/responses", { headers, body: JSON.stringify(responsesConversation()) });

    const [openai, anthropic, responses] = upstream.requests.map((request) => request.headers);
    expect([responses?.authorization, responses?.["x-api-key"]]).toEqual([
      "Bearer sk-gateway",
      undefined,
    ]);
    expect([openai?.authorization, openai?.["x-api-key"]]).toEqual([
      "Bearer sk-gateway",
      undefined,
    ]);
    expect([anthropic?.authorization, anthropic?.["x-api-key"]]).toEqual([
      undefined,
      "sk-ant-gateway",
    ]);
  });

  it("never forwards hop-by-hop headers, cookies or control headers, and keeps the query", async () => {
    upstream.reply({ json: {} });

    await post(appWith(), "/v1/messages?beta=true", {
      headers: {
        cookie: "a=b",
        "x-context-guru-bypass": "false",
        "x-trace": "kept",
        "proxy-authorization": "Basic x",
        "anthropic-beta": "tools-2024",
      },
    });

    const request = upstream.requests[0];
    expect(request?.url).toBe("/v1/messages?beta=true");
    expect(request?.headers).toMatchObject({ "x-trace": "kept", "anthropic-beta": "tools-2024" });
    for (const name of ["cookie", "x-context-guru-bypass", "proxy-authorization"]) {
      expect(request?.headers[name]).toBeUndefined();
    }
  });

  it("forwards an agent's own summary request uncompacted", async () => {
    const conversation = openaiConversation();
    conversation.messages.push({
      role: "user",
      content: "Your task is to create a detailed summary of the conversation so far.",
    });
    const text = JSON.stringify(conversation);
    upstream.reply({ json: {} }, { json: {} });

    await post(appWith(), "/v1/chat/completions", { body: text });
    await post(appWith(), "/v1/chat/completions", { body });

    expect(upstream.requests[0]?.body).toBe(text);
    expect(upstream.requests[1]?.body).toContain(`<<cg:${MASKED_ID}>>`);
  });

  it("forwards the original body untouched with the bypass header", async () => {
    upstream.reply({ json: {} });

    await post(appWith(), "/v1/chat/completions", { headers: { "x-context-guru-bypass": "true" } });

    expect(upstream.requests[0]?.body).toBe(body);
  });

  it("forwards the original body when compaction fails, and still runs the loop", async () => {
    const config = configSchema.parse({
      upstream: { openai: { base_url: `http://127.0.0.1:${upstream.port}/v1` } },
    });
    const failing = {
      compact: () => Promise.reject(new Error("pipeline crashed")),
    };
    const app = proxyRoutes({ config, store: createStore(config.store), compactor: failing });
    upstream.reply(openaiJson(null, [expandCall(MASKED_ID)]), openaiJson("done"));

    const response = await post(app, "/v1/chat/completions");

    expect(upstream.requests[0]?.body).toBe(body);
    // Nothing in the request carries a marker: the call is answered with the placeholder.
    expect(lastMessage(1)).toEqual({
      role: "tool",
      tool_call_id: `call_${MASKED_ID}`,
      content: missPlaceholder(MASKED_ID),
    });
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: "done" } }] });
  });

  it("answers an expand call whose arguments are not JSON with the placeholder", async () => {
    const reply = openaiJson(null, [expandCall(MASKED_ID)]);
    const json = structuredClone(reply.json) as {
      choices: [{ message: { tool_calls: [{ function: { arguments: string } }] } }];
    };
    json.choices[0].message.tool_calls[0].function.arguments = '{"id": "abc';
    upstream.reply({ json }, openaiJson("done"));

    const response = await post(appWith(), "/v1/chat/completions");

    expect(lastMessage(1)).toEqual({
      role: "tool",
      tool_call_id: `call_${MASKED_ID}`,
      content: MALFORMED_CALL,
    });
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: "done" } }] });
  });

  it("answers a streamed Anthropic expand call whose input is not JSON with the placeholder", async () => {
    const event = (type: string, data: Record<string, unknown>) => ({
      event: type,
      data: { type, ...data },
    });
    upstream.reply(
      {
        sse: [
          event("message_start", {
            message: { id: "msg_1", type: "message", role: "assistant", content: [], usage: {} },
          }),
          event("content_block_start", {
            index: 0,
            content_block: {
              type: "tool_use",
              id: "toolu_1",
              name: "context_guru_expand",
              input: {},
            },
          }),
          event("content_block_delta", {
            index: 0,
            delta: { type: "input_json_delta", partial_json: '{"id": 12' },
          }),
          event("content_block_stop", { index: 0 }),
          event("message_delta", { delta: { stop_reason: "tool_use" }, usage: {} }),
          event("message_stop", {}),
        ],
      },
      anthropicJson([{ type: "text", text: "done" }]),
    );
    const anthropic = JSON.stringify({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "hello" }],
      stream: true,
    });

    const response = await post(appWith(), "/v1/messages", { body: anthropic });

    const second = upstream.requests[1]?.json as { messages: unknown[] };
    expect(second.messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "context_guru_expand", input: {} }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: MALFORMED_CALL }],
      },
    ]);
    expect(await response.json()).toMatchObject({ content: [{ type: "text", text: "done" }] });
  });

  it("runs each component a long pipeline header names once", async () => {
    upstream.reply({ json: {} });
    const gated = { trigger: { min_messages: 1000 } };
    const app = appWith({ components: { mask: gated, textclean: gated } });
    const names = Array.from({ length: 7_040 }, (_, index) =>
      index % 2 === 0 ? "mask" : "textclean",
    ).join(",");

    await post(app, "/v1/chat/completions", { headers: { "x-context-guru-pipeline": names } });

    const metrics = await (await app.request("/metrics")).text();
    for (const component of ["mask", "textclean"]) {
      expect(
        sample(metrics, "cg_component_gated_total", { component, reason: "min_messages" }),
      ).toBe(1);
    }
  });

  it("reports the session, token counts and rounds in response headers", async () => {
    upstream.reply(openaiJson(null, [expandCall(MASKED_ID)]), openaiJson("done"));

    const response = await post(appWith(), "/v1/chat/completions", {
      headers: { "x-context-guru-session": "agent-42" },
    });

    expect(response.headers.get("x-context-guru-session")).toBe("agent-42");
    expect(response.headers.get("x-context-guru-expand-rounds")).toBe("1");
    const before = Number(response.headers.get("x-context-guru-tokens-before"));
    const after = Number(response.headers.get("x-context-guru-tokens-after"));
    expect(after).toBeLessThan(before);
    expect(response.headers.get("content-length")).toBeNull();
  });

  describe("POST /v1/responses", () => {
    const responses = JSON.stringify(responsesConversation());
    const postResponses = (app: Hono, init: RequestInit = {}) =>
      post(app, "/v1/responses", { body: responses, ...init });

    it("answers 200 with the final response after an expand round, and says so in headers", async () => {
      upstream.reply(
        responsesJson([{ type: "call", ...expandCall(MASKED_ID) }], { id: "resp_a" }),
        responsesJson([{ type: "text", text: "done" }], { id: "resp_b" }),
      );

      const response = await postResponses(appWith(), {
        headers: { "x-context-guru-session": "r-200" },
      });

      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: "resp_b", output: [{ type: "message" }] });
      expect(response.headers.get("x-context-guru-expand-rounds")).toBe("1");
      expect(response.headers.get("x-context-guru-session")).toBe("r-200");
      const before = Number(response.headers.get("x-context-guru-tokens-before"));
      expect(Number(response.headers.get("x-context-guru-tokens-after"))).toBeLessThan(before);
      expect(upstream.requests.map((request) => request.url)).toEqual([
        "/v1/responses",
        "/v1/responses",
      ]);
      expect(
        (upstream.requests[1]?.json as { input?: unknown[] } | undefined)?.input?.at(-1),
      ).toEqual({
        type: "function_call_output",
        call_id: `call_${MASKED_ID}`,
        output: toolOutput(0),
      });
    });

    it("answers 400 for a body that is not UTF-8, without calling the upstream", async () => {
      const response = await postResponses(appWith(), { body: new Uint8Array([0x7b, 0xff, 0x7d]) });

      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "request body is not valid UTF-8" });
      expect(upstream.requests).toHaveLength(0);
    });

    it("answers 400 for a body that is not JSON, without a call upstream", async () => {
      const response = await postResponses(appWith(), { body: "{oops" });

      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: "request body is not valid JSON" });
      expect(upstream.requests).toHaveLength(0);
    });

    it("answers 401 without the service token when a gateway key is configured", async () => {
      const app = appWith({
        auth: { token: "proxy-token-0123456789abcdef" },
        upstream: {
          openai: { base_url: `http://127.0.0.1:${upstream.port}/v1`, api_key: "sk-gateway" },
        },
      });

      const response = await postResponses(app);

      expect(response.status).toBe(401);
      expect(upstream.requests).toHaveLength(0);
    });

    it("answers 413 over the body limit without calling the upstream", async () => {
      const response = await postResponses(appWith({ limits: { body_bytes: 100 } }));

      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ error: "request body exceeds 100 bytes" });
      expect(upstream.requests).toHaveLength(0);
    });

    it("answers 502 without the upstream URL when the upstream resets the connection", async () => {
      upstream.reply({ reset: true });

      const response = await postResponses(appWith());

      expect(response.status).toBe(502);
      expect(await response.text()).toBe('{"error":"upstream connection failed"}');
    });

    it("answers 504 when no response starts within the first-byte timeout", async () => {
      upstream.reply({ delay: new Promise<void>(() => {}) });

      const response = await postResponses(appWith({ upstream: { first_byte_timeout_ms: 50 } }));

      expect(response.status).toBe(504);
      expect(await response.text()).toBe('{"error":"upstream sent no response within 50 ms"}');
    });
  });
});
