import { request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { httpServerOptions, keepRequestsAlreadySent } from "../../src/lifecycle/http-server.js";
import { createStore } from "../../src/store/create.js";
import { sample } from "../observability/prometheus-text.js";

const ANSWER = {
  error:
    "/v1/responses is not served over WebSocket; send the request over HTTP: POST /v1/responses",
};
/** What a WebSocket client (Codex's Responses transport) sends to open its connection. */
const HANDSHAKE = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  authorization: "Bearer sk-client",
};

/** An app whose upstream fetch records every call: an upgrade attempt must make none. */
function appWith(input: ConfigInput = {}) {
  const calls: string[] = [];
  const config = parseConfig(input);
  const app = createApp({
    config,
    store: createStore(config.store),
    fetch: async (url) => {
      calls.push(String(url));
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  });
  return { app, config, calls };
}

describe("a WebSocket upgrade on /v1/responses, in process", () => {
  it.each([
    ["GET", "websocket"],
    ["GET", "WebSocket"],
    ["GET", "h2c, websocket"],
    ["GET", "websocket/13"],
    ["POST", "websocket"],
  ])("%s with upgrade: %s → 426 naming the HTTP route", async (method, upgrade) => {
    const { app, calls } = appWith();

    const response = await app.request("/v1/responses", {
      method,
      headers: { ...HANDSHAKE, upgrade },
      ...(method === "POST" && { body: "{}" }),
    });

    expect(response.status).toBe(426);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("upgrade")).toBe("HTTP/1.1");
    expect(response.headers.get("connection")).toBe("upgrade, close");
    expect(await response.json()).toEqual(ANSWER);
    expect(calls).toEqual([]);
  });

  it.each([
    ["no upgrade", {}],
    ["another protocol", { connection: "Upgrade", upgrade: "h2c" }],
  ])("answers a GET with %s as before: 405", async (_case, headers) => {
    const { app } = appWith();

    const response = await app.request("/v1/responses", { headers });

    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("answers before any credential is asked for", async () => {
    const { app, calls } = appWith({
      auth: { token: "operator-token-0123456789" },
      upstream: { openai: { api_key: "sk-gateway" } },
    });

    const response = await app.request("/v1/responses", { headers: HANDSHAKE });

    expect(response.status).toBe(426);
    expect(calls).toEqual([]);
  });

  it("is labelled with the route in the metrics", async () => {
    const { app } = appWith();
    await app.request("/v1/responses", { headers: HANDSHAKE });

    const metrics = await (await app.request("/metrics")).text();

    const labels = { route: "/v1/responses", method: "GET", status: "426" };
    expect(sample(metrics, "cg_http_requests_total", labels)).toBe(1);
  });
});

describe("a WebSocket upgrade on /v1/responses, over a real socket", () => {
  let server: ServerType;
  let port: number;
  let calls: string[];

  beforeAll(async () => {
    const built = appWith();
    calls = built.calls;
    // Served as the server entry serves the app: the same options, no upgrade listener.
    server = await new Promise<ServerType>((resolve) => {
      const started = serve(
        {
          fetch: built.app.fetch,
          port: 0,
          hostname: "127.0.0.1",
          serverOptions: httpServerOptions(built.config.limits),
        },
        () => resolve(started),
      );
    });
    keepRequestsAlreadySent(server as Server);
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it("answers the raw handshake with HTTP/1.1 426 and a JSON body, then closes", async () => {
    const socket = connect(port, "127.0.0.1");
    const lines = Object.entries(HANDSHAKE).map(([name, value]) => `${name}: ${value}`);
    socket.write(
      ["GET /v1/responses HTTP/1.1", `host: 127.0.0.1:${port}`, ...lines, "", ""].join("\r\n"),
    );
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));

    // Resolves only when the server ends the connection.
    await new Promise<void>((ended) => socket.on("end", ended));
    socket.destroy();

    const text = Buffer.concat(chunks).toString("utf8");
    const [head = "", body] = text.split("\r\n\r\n");
    const [status, ...fields] = head.split("\r\n");
    const headers = Object.fromEntries(
      fields.map((field) => {
        const colon = field.indexOf(":");
        return [field.slice(0, colon).toLowerCase(), field.slice(colon + 1).trim()];
      }),
    );
    expect(status).toBe("HTTP/1.1 426 Upgrade Required");
    expect(headers).toMatchObject({
      connection: "upgrade, close",
      upgrade: "HTTP/1.1",
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body ?? "")),
    });
    expect(JSON.parse(body ?? "")).toEqual(ANSWER);
    expect(calls).toEqual([]);
  });

  it("gives Node's HTTP client a 426 response, not an upgrade", async () => {
    const client = httpRequest({
      host: "127.0.0.1",
      port,
      path: "/v1/responses",
      headers: HANDSHAKE,
      agent: false,
    });
    const upgraded: string[] = [];
    client.on("upgrade", () => upgraded.push("upgrade"));
    client.end();

    const response = await new Promise<IncomingMessage>((resolve) =>
      client.on("response", resolve),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);

    expect(response.statusCode).toBe(426);
    expect(response.headers.upgrade).toBe("HTTP/1.1");
    expect(JSON.parse(Buffer.concat(chunks).toString("utf8"))).toEqual(ANSWER);
    expect(upgraded).toEqual([]);
  });
});
