import { request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { markerIds } from "../../src/expand/markers.js";
import { Lifecycle } from "../../src/lifecycle/lifecycle.js";
import { createStore } from "../../src/store/create.js";
import { anthropicBody, MASKABLE_OUTPUTS, openaiBody } from "../support/bodies.js";
import { responsesConversation } from "../support/proxy-harness.js";
import { OpenapiValidator } from "./openapi-validator.js";

const validator = new OpenapiValidator();
const token = "operator-token-0123456789";
const session = "openapi-suite";

const outputs = MASKABLE_OUTPUTS;

const chatCompletion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-test",
  choices: [{ index: 0, message: { role: "assistant", content: "Fixed." }, finish_reason: "stop" }],
};
const anthropicMessage = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test",
  content: [{ type: "text", text: "Fixed." }],
  stop_reason: "end_turn",
  usage: { input_tokens: 1, output_tokens: 1 },
};
const sse =
  'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Fixed."}}]}\n\ndata: [DONE]\n\n';
const responseObject = {
  id: "resp_1",
  object: "response",
  status: "completed",
  model: "gpt-test",
  output: [
    {
      type: "message",
      id: "msg_1",
      role: "assistant",
      content: [{ type: "output_text", text: "Fixed.", annotations: [] }],
    },
  ],
  usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1 },
};
const responseEvents = [
  { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, delta: "Fixed." },
  { type: "response.completed", response: responseObject },
]
  .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  .join("");

const modelList = { object: "list", data: [{ id: "gpt-test", object: "model", created: 1 }] };

/**
 * A scripted upstream chosen by the request's `model` (for the models routes, by the id asked
 * for); a count answers with a count.
 */
const upstream: typeof fetch = async (input, init) => {
  const path = new URL(String(input)).pathname;
  const models = /\/models(?:\/(.+))?$/.exec(path);
  const body: unknown = models ? { model: models[1] ?? "list" } : JSON.parse(String(init?.body));
  const model = typeof body === "object" && body !== null && "model" in body ? body.model : "";
  const json = (value: unknown, status = 200) =>
    new Response(JSON.stringify(value), {
      status,
      headers: { "content-type": "application/json" },
    });
  if (path.endsWith("/count_tokens") && model === "claude") return json({ input_tokens: 12 });
  switch (model) {
    case "list":
      return json(modelList);
    case "gpt-test":
      return json(modelList.data[0]);
    case "missing":
      return json({ error: { message: "The model does not exist" } }, 404);
    case "unreachable":
      throw new TypeError("fetch failed");
    case "silent":
      return new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      );
    case "limited":
      return json({ error: { type: "rate_limit_error", message: "slow down" } }, 429);
    case "stream":
      return new Response(sse, { headers: { "content-type": "text/event-stream" } });
    case "claude":
      return json(anthropicMessage);
    case "responses":
      return json(responseObject);
    case "responses-stream":
      return new Response(responseEvents, { headers: { "content-type": "text/event-stream" } });
    default:
      return json(chatCompletion);
  }
};

function buildApp(input: ConfigInput = {}, lifecycle = new Lifecycle()) {
  const config = parseConfig({
    upstream: { first_byte_timeout_ms: 50 },
    limits: { body_bytes: 64 * 1024 },
    ...input,
  });
  return createApp({ config, store: createStore(config.store), lifecycle, fetch: upstream });
}

type Send = (path: string, init?: RequestInit) => Promise<Response>;

/** Each suite runs in-process and over a real server on an ephemeral port. */
const transports: ReadonlyArray<[string, (app: ReturnType<typeof createApp>) => Promise<Send>]> = [
  ["in-process", async (app) => async (path, init) => app.request(path, init)],
  [
    "real server",
    async (app) => {
      const server = await new Promise<ServerType>((resolve) => {
        const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
          resolve(started),
        );
      });
      servers.push(server);
      const { port } = server.address() as AddressInfo;
      return (path, init) =>
        new Headers(init?.headers).has("upgrade")
          ? handshake(port, path, init)
          : fetch(`http://127.0.0.1:${port}${path}`, init);
    },
  ],
];
const servers: ServerType[] = [];

/** A request with `upgrade` (which fetch refuses to send) over Node's HTTP client. */
async function handshake(port: number, path: string, init?: RequestInit): Promise<Response> {
  const request = httpRequest({
    host: "127.0.0.1",
    port,
    path,
    method: init?.method ?? "GET",
    headers: Object.fromEntries(new Headers(init?.headers)),
    agent: false,
  });
  request.end();
  const response = await new Promise<IncomingMessage>((resolve) => request.on("response", resolve));
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  return new Response(Buffer.concat(chunks), { status: response.statusCode ?? 0, headers });
}
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

const json = (body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  body,
  headers: { "content-type": "application/json", "x-context-guru-session": session, ...headers },
});
const chat = (model: string, extra: Record<string, unknown> = {}) =>
  json(openaiBody(["short output"], { model, ...extra }));
const responses = (model: string) =>
  json(JSON.stringify({ ...responsesConversation(), model, stream: model.endsWith("stream") }));

interface Case {
  readonly method: string;
  readonly path: string;
  readonly url: string;
  readonly init?: RequestInit;
  readonly status: number;
}

describe.each(transports)("real responses validate against openapi.yaml (%s)", (_name, connect) => {
  let open: Send;
  let guarded: Send;
  let relaying: Send;
  let draining: Send;
  let compacted = "";

  beforeAll(async () => {
    open = await connect(buildApp());
    guarded = await connect(buildApp({ auth: { token } }));
    relaying = await connect(
      buildApp({
        auth: { token },
        upstream: { openai: { api_key: "sk-gateway" }, anthropic: { api_key: "sk-gateway" } },
      }),
    );
    const lifecycle = new Lifecycle();
    draining = await connect(buildApp({}, lifecycle));
    lifecycle.beginDrain();
    const response = await open(
      "/compact",
      json(openaiBody(outputs), { "x-context-guru-cache": "cold" }),
    );
    compacted = await response.text();
  });

  const id = () => markerIds(compacted)[0] ?? "missing";
  const cases = (): Case[] => [
    {
      method: "POST",
      path: "/compact",
      url: "/compact",
      init: json(openaiBody(outputs)),
      status: 200,
    },
    {
      method: "POST",
      path: "/compact",
      url: "/compact?provider=anthropic&preset=safe",
      init: json(anthropicBody(outputs)),
      status: 200,
    },
    {
      method: "POST",
      path: "/compact",
      url: "/compact",
      init: json(openaiBody(outputs), { "x-context-guru-pipeline": "format,nonsense" }),
      status: 200,
    },
    { method: "POST", path: "/compact", url: "/compact", init: json("not json"), status: 200 },
    {
      method: "POST",
      path: "/compact",
      url: "/compact",
      init: json(openaiBody(outputs), { "x-context-guru-bypass": "true" }),
      status: 200,
    },
    {
      method: "POST",
      path: "/compact",
      url: "/compact",
      init: json("x".repeat(70_000)),
      status: 413,
    },
    { method: "GET", path: "/expand", url: `/expand?id=${id()}&session=${session}`, status: 200 },
    {
      method: "GET",
      path: "/expand",
      url: `/expand?id=0000000000000000&session=${session}`,
      status: 404,
    },
    { method: "GET", path: "/expand", url: "/expand", status: 400 },
    { method: "POST", path: "/rehydrate", url: "/rehydrate", init: json(compacted), status: 200 },
    { method: "POST", path: "/rehydrate", url: "/rehydrate", init: json("[1"), status: 400 },
    {
      method: "POST",
      path: "/rehydrate",
      url: "/rehydrate",
      init: json("x".repeat(70_000)),
      status: 413,
    },
    {
      method: "POST",
      path: "/v1/chat/completions",
      url: "/v1/chat/completions",
      init: chat("gpt-test"),
      status: 200,
    },
    {
      method: "POST",
      path: "/v1/chat/completions",
      url: "/v1/chat/completions",
      init: chat("stream", { stream: true }),
      status: 200,
    },
    {
      method: "POST",
      path: "/v1/chat/completions",
      url: "/v1/chat/completions",
      init: chat("limited"),
      status: 429,
    },
    {
      method: "POST",
      path: "/v1/chat/completions",
      url: "/v1/chat/completions",
      init: chat("unreachable"),
      status: 502,
    },
    {
      method: "POST",
      path: "/v1/chat/completions",
      url: "/v1/chat/completions",
      init: chat("silent"),
      status: 504,
    },
    {
      method: "POST",
      path: "/v1/messages",
      url: "/v1/messages",
      init: json(anthropicBody(["short output"], { model: "claude", max_tokens: 10 })),
      status: 200,
    },
    {
      method: "POST",
      path: "/v1/messages",
      url: "/v1/messages",
      init: json(anthropicBody(["short output"], { model: "unreachable", max_tokens: 10 })),
      status: 502,
    },
    ...(
      [
        ["responses", 200],
        ["responses-stream", 200],
        ["limited", 429],
        ["unreachable", 502],
        ["silent", 504],
      ] as const
    ).map(([model, status]) => ({
      method: "POST",
      path: "/v1/responses",
      url: "/v1/responses",
      init: responses(model),
      status,
    })),
    {
      method: "GET",
      path: "/v1/responses",
      url: "/v1/responses",
      init: { headers: { connection: "Upgrade", upgrade: "websocket" } },
      status: 426,
    },
    ...(
      [
        ["claude", 200],
        ["limited", 429],
        ["unreachable", 502],
        ["silent", 504],
      ] as const
    ).map(([model, status]) => ({
      method: "POST",
      path: "/v1/messages/count_tokens",
      url: "/v1/messages/count_tokens",
      init: json(anthropicBody(["short output"], { model })),
      status,
    })),
    {
      method: "POST",
      path: "/v1/messages/count_tokens",
      url: "/v1/messages/count_tokens",
      init: json("{"),
      status: 400,
    },
    { method: "GET", path: "/v1/models", url: "/v1/models", status: 200 },
    ...(
      [
        ["gpt-test", 200],
        ["missing", 404],
        ["a%2F..%2Fb", 404],
        ["limited", 429],
        ["unreachable", 502],
        ["silent", 504],
      ] as const
    ).map(([id, status]) => ({
      method: "GET",
      path: "/v1/models/{id}",
      url: `/v1/models/${id}`,
      status,
    })),
    { method: "GET", path: "/livez", url: "/livez", status: 200 },
    { method: "GET", path: "/healthz", url: "/healthz", status: 200 },
    { method: "GET", path: "/readyz", url: "/readyz", status: 200 },
    { method: "GET", path: "/metrics", url: "/metrics", status: 200 },
    { method: "GET", path: "/openapi.yaml", url: "/openapi.yaml", status: 200 },
  ];

  it("covers every documented operation", () => {
    const exercised = new Set(cases().map((item) => `${item.method} ${item.path}`));
    expect([...exercised].sort()).toEqual(validator.operations().sort());
  });

  it("answers each case with its documented status, headers and body", async () => {
    for (const item of cases()) {
      const response = await open(item.url, item.init);
      const label = `${item.method} ${item.url} → ${item.status}`;
      expect({ label, status: response.status }).toEqual({ label, status: item.status });
      expect({ label, problems: await validator.check(item.method, item.path, response) }).toEqual({
        label,
        problems: [],
      });
    }
  });

  it.each([
    ["GET", "/expand", "/expand?id=0000000000000000"],
    ["POST", "/rehydrate", "/rehydrate"],
    ["GET", "/metrics", "/metrics"],
  ])("%s %s without the bearer token → documented 401", async (method, path, url) => {
    const init = method === "POST" ? json(compacted) : { method };
    const response = await guarded(url, init);
    expect(response.status).toBe(401);
    expect(await validator.check(method, path, response)).toEqual([]);
  });

  it.each(["/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/messages/count_tokens"])(
    "POST %s with a gateway key and without auth.token → documented 401",
    async (path) => {
      const response = await relaying(path, json(openaiBody(outputs)));
      expect(response.status).toBe(401);
      expect(await validator.check("POST", path, response)).toEqual([]);
    },
  );

  it.each([
    ["/v1/models", "/v1/models"],
    ["/v1/models/{id}", "/v1/models/gpt-test"],
  ])("GET %s with a gateway key and without auth.token → documented 401", async (path, url) => {
    const response = await relaying(url, { headers: { "anthropic-version": "2023-06-01" } });
    expect(response.status).toBe(401);
    expect(await validator.check("GET", path, response)).toEqual([]);
  });

  it.each([
    ["GET", "/readyz"],
    ["POST", "/compact"],
    ["GET", "/metrics"],
    ["POST", "/v1/messages"],
    ["POST", "/v1/responses"],
    ["POST", "/v1/messages/count_tokens"],
    ["GET", "/v1/models"],
  ])("%s %s while draining → documented 503", async (method, path) => {
    const init = method === "POST" ? json(openaiBody(outputs)) : { method };
    const response = await draining(path, init);
    expect(response.status).toBe(503);
    expect(await validator.check(method, path, response)).toEqual([]);
  });
});

describe("the validator itself", () => {
  it.each([
    [
      "an undocumented status",
      "GET",
      "/livez",
      new Response('{"status":"ok"}', {
        status: 418,
        headers: { "content-type": "application/json" },
      }),
      ["GET /livez does not document status 418"],
    ],
    [
      "a body off its schema",
      "GET",
      "/readyz",
      new Response('{"status":"fine"}', { headers: { "content-type": "application/json" } }),
      ["200 body/status must be equal to one of the allowed values"],
    ],
    [
      "an undocumented media type",
      "GET",
      "/expand",
      new Response("x", { headers: { "content-type": "text/html" } }),
      ['200 does not document media type "text/html"'],
    ],
    [
      "an undocumented x-context-guru header",
      "GET",
      "/livez",
      new Response('{"status":"ok"}', {
        headers: { "content-type": "application/json", "x-context-guru-mystery": "1" },
      }),
      ["header x-context-guru-mystery is not documented"],
    ],
    [
      "a header off its schema",
      "POST",
      "/compact",
      new Response("{}", {
        headers: { "content-type": "application/json", "x-context-guru-markers": "-1" },
      }),
      ["header x-context-guru-markers must be integer"],
    ],
  ])("rejects %s", async (_case, method, path, response, expected) => {
    expect(await validator.check(method, path, response)).toEqual(expected);
  });
});
