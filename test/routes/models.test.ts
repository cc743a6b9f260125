import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { type ServerType, serve } from "@hono/node-server";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";
import { sample } from "../observability/prometheus-text.js";
import { ScriptedUpstream } from "../support/scripted-upstream.js";

const OPENAI_MODELS = {
  object: "list",
  data: [{ id: "gpt-test", object: "model", created: 1, owned_by: "openai" }],
};
const ANTHROPIC_MODELS = {
  data: [
    {
      type: "model",
      id: "claude-test",
      display_name: "Claude Test",
      created_at: "2025-01-01T00:00:00Z",
    },
  ],
  has_more: false,
  first_id: "claude-test",
  last_id: "claude-test",
};
const TOKEN = "operator-token-0123456789";

describe("GET /v1/models", () => {
  let upstream: ScriptedUpstream;
  const servers: ServerType[] = [];
  /** The two upstreams on one scripted server, told apart by their base paths. */
  const appWith = (overrides: ConfigInput = {}, fetchImpl?: typeof fetch) => {
    const config = configSchema.parse({
      ...overrides,
      upstream: {
        ...overrides.upstream,
        openai: {
          base_url: `http://127.0.0.1:${upstream.port}/openai/v1`,
          ...overrides.upstream?.openai,
        },
        anthropic: {
          base_url: `http://127.0.0.1:${upstream.port}/anthropic`,
          ...overrides.upstream?.anthropic,
        },
      },
    });
    return createApp({
      config,
      store: createStore(config.store),
      ...(fetchImpl && { fetch: fetchImpl }),
    });
  };
  /** The app on a real loopback socket; its port. */
  const listen = async (app: ReturnType<typeof createApp>) => {
    const server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () =>
        resolve(started),
      );
    });
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };
  const urls = () => upstream.requests.map((request) => `${request.method} ${request.url}`);

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
    await upstream.close();
  });
  beforeEach(() => upstream.reset());

  it("serves the official OpenAI client's models.list and models.retrieve", async () => {
    upstream.script((request) =>
      request.url.endsWith("/models") ? { json: OPENAI_MODELS } : { json: OPENAI_MODELS.data[0] },
    );
    const port = await listen(appWith());
    const client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: "sk-client",
      maxRetries: 0,
    });

    const models = await client.models.list();
    const model = await client.models.retrieve("ft:gpt-test:org:custom");

    expect(models.data).toEqual(OPENAI_MODELS.data);
    expect(model).toEqual(OPENAI_MODELS.data[0]);
    expect(urls().map((url) => decodeURIComponent(url))).toEqual([
      "GET /openai/v1/models",
      "GET /openai/v1/models/ft:gpt-test:org:custom",
    ]);
    expect(upstream.requests.map((request) => request.headers.authorization)).toEqual([
      "Bearer sk-client",
      "Bearer sk-client",
    ]);
  });

  it("serves the official Anthropic client's models.list and models.retrieve", async () => {
    upstream.script((request) =>
      request.url.includes("/models?")
        ? { json: ANTHROPIC_MODELS }
        : { json: ANTHROPIC_MODELS.data[0] },
    );
    const port = await listen(appWith());
    const client = new Anthropic({
      baseURL: `http://127.0.0.1:${port}`,
      apiKey: "sk-ant-client",
      authToken: null,
      maxRetries: 0,
    });

    const models = await client.models.list({ limit: 5 });
    const model = await client.models.retrieve("claude-test");

    expect(models.data).toEqual(ANTHROPIC_MODELS.data);
    expect(model).toEqual(ANTHROPIC_MODELS.data[0]);
    expect(urls()).toEqual([
      "GET /anthropic/v1/models?limit=5",
      "GET /anthropic/v1/models/claude-test",
    ]);
    for (const request of upstream.requests) {
      expect(request.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it.each([
    ["no credentials", {}, "openai"],
    ["a bearer token", { authorization: "Bearer sk-client" }, "openai"],
    ["an anthropic-version header", { "anthropic-version": "2023-06-01" }, "anthropic"],
    ["an x-api-key", { "x-api-key": "sk-ant-client" }, "anthropic"],
    [
      "a bearer token and an anthropic-version header",
      { authorization: "Bearer sk-ant-oauth", "anthropic-version": "2023-06-01" },
      "anthropic",
    ],
  ])("sends a request with %s to the %s upstream", async (_case, headers, target) => {
    upstream.reply({ json: {} });

    const response = await appWith().request("/v1/models", { headers });

    expect(response.status).toBe(200);
    const path = target === "openai" ? "/openai/v1/models" : "/anthropic/v1/models";
    expect(urls()).toEqual([`GET ${path}`]);
  });

  it("forwards the path and query as sent, with the proxy routes' header hygiene", async () => {
    upstream.reply({
      json: { id: "meta-llama/Llama-3.1-8B-Instruct" },
      headers: { "x-upstream": "1", "set-cookie": "a=b", "x-context-guru-session": "forged" },
    });

    const response = await appWith().request(
      "/v1/models/meta-llama/Llama-3.1-8B-Instruct?beta=true",
      {
        headers: {
          authorization: "Bearer sk-client",
          "x-custom": "kept",
          cookie: "session=secret",
          "x-context-guru-session": "mine",
          "proxy-authorization": "Basic eA==",
        },
      },
    );

    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"id":"meta-llama/Llama-3.1-8B-Instruct"}');
    expect(response.headers.get("x-upstream")).toBe("1");
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("x-context-guru-session")).toBeNull();
    expect(urls()).toEqual(["GET /openai/v1/models/meta-llama/Llama-3.1-8B-Instruct?beta=true"]);
    const headers = upstream.requests[0]?.headers ?? {};
    expect(headers.authorization).toBe("Bearer sk-client");
    expect(headers["x-custom"]).toBe("kept");
    for (const name of [
      "cookie",
      "x-context-guru-session",
      "proxy-authorization",
      "content-type",
    ]) {
      expect({ name, value: headers[name] }).toEqual({ name, value: undefined });
    }
  });

  it.each([
    "/v1/models/a%2F..%2Fadmin",
    "/v1/models/a%5C..%5Cadmin",
    "/v1/models/x%2F%2Fy",
    "/v1/models/%E0%A4%A",
  ])("refuses %s without a call upstream", async (path) => {
    const response = await appWith().request(path);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "not a model id" });
    expect(upstream.requests).toEqual([]);
  });

  it("passes an upstream error through with its status and body", async () => {
    const missing = {
      error: { message: "The model 'nope' does not exist", type: "invalid_request_error" },
    };
    upstream.reply({ status: 404, json: missing });

    const response = await appWith().request("/v1/models/nope");

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(missing);
  });

  it("answers 502 without the upstream's address when it cannot be reached", async () => {
    const refused: typeof fetch = async () => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${upstream.port}`), {
          code: "ECONNREFUSED",
        }),
      });
    };

    const response = await appWith({}, refused).request("/v1/models");

    expect(response.status).toBe(502);
    expect(await response.text()).toBe('{"error":"upstream connection failed"}');
  });

  it("asks a HEAD upstream as a HEAD", async () => {
    upstream.reply({ json: OPENAI_MODELS });

    const response = await appWith().request("/v1/models", { method: "HEAD" });

    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    expect(urls()).toEqual(["HEAD /openai/v1/models"]);
  });

  it("answers another method with 405 and the methods it serves", async () => {
    const response = await appWith().request("/v1/models", { method: "POST", body: "{}" });

    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });

  describe("with a gateway key", () => {
    const gatewayed = (keys: { openai?: string; anthropic?: string }) =>
      appWith({
        auth: { token: TOKEN },
        upstream: {
          ...(keys.openai && { openai: { api_key: keys.openai } }),
          ...(keys.anthropic && { anthropic: { api_key: keys.anthropic } }),
        },
      });

    it("requires auth.token, which the upstream's gateway key replaces", async () => {
      upstream.script(() => ({ json: {} }));
      const app = gatewayed({ openai: "sk-gateway", anthropic: "sk-ant-gateway" });
      const anthropic = { "anthropic-version": "2023-06-01" };

      const refused = [
        await app.request("/v1/models", { headers: { authorization: "Bearer sk-client" } }),
        await app.request("/v1/models/x", { headers: { ...anthropic, "x-api-key": "sk-ant" } }),
      ];
      const accepted = [
        await app.request("/v1/models", { headers: { authorization: `Bearer ${TOKEN}` } }),
        await app.request("/v1/models/x", { headers: { ...anthropic, "x-api-key": TOKEN } }),
      ];

      expect(refused.map((response) => response.status)).toEqual([401, 401]);
      expect(accepted.map((response) => response.status)).toEqual([200, 200]);
      expect(urls()).toEqual(["GET /openai/v1/models", "GET /anthropic/v1/models/x"]);
      const [openai, claude] = upstream.requests;
      expect(openai?.headers.authorization).toBe("Bearer sk-gateway");
      expect(claude?.headers["x-api-key"]).toBe("sk-ant-gateway");
    });

    it("leaves a request for the other upstream to its own credentials", async () => {
      upstream.reply({ json: {} });
      const app = gatewayed({ openai: "sk-gateway" });

      const response = await app.request("/v1/models", {
        headers: { "anthropic-version": "2023-06-01", "x-api-key": "sk-ant-client" },
      });

      expect(response.status).toBe(200);
      expect(upstream.requests[0]?.headers["x-api-key"]).toBe("sk-ant-client");
    });
  });

  it("labels every model id's requests with one route", async () => {
    upstream.script(() => ({ json: {} }));
    const app = appWith();
    for (const path of ["/v1/models", "/v1/models/a", "/v1/models/b/c", "/v1/models/d"]) {
      await (await app.request(path)).text();
    }

    const metrics = await (await app.request("/metrics")).text();
    const count = (route: string) =>
      sample(metrics, "cg_http_requests_total", { route, method: "GET", status: "200" });

    expect(count("/v1/models/:id")).toBe(3);
    expect(count("/v1/models")).toBe(1);
  });
});
