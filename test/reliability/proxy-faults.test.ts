import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { createStore } from "../../src/store/create.js";
import { breaksOffAfter, FaultUpstream, textChunk } from "./fault-upstream.js";

/**
 * §10 faults on the proxy routes, over a real server on an ephemeral port and an upstream on a
 * loopback socket that misbehaves on purpose. Each test asserts the exact status and bytes.
 */
const FIRST_BYTE_MS = 400;
let upstream: FaultUpstream;
let server: ServerType;
let base: string;

beforeAll(async () => {
  upstream = await FaultUpstream.start();
  const config = parseConfig({
    upstream: {
      openai: { base_url: `${upstream.url}/v1` },
      first_byte_timeout_ms: FIRST_BYTE_MS,
    },
  });
  const app = createApp({ config, store: createStore(config.store) });
  base = await new Promise<string>((done) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      done(`http://127.0.0.1:${info.port}`),
    );
  });
});
afterEach(() => {
  upstream.received.length = 0;
});
afterAll(async () => {
  await upstream.close();
  await new Promise<void>((done) => server.close(() => done()));
});

const chat = (stream: boolean) =>
  JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: "hello" }] });

function post(stream: boolean): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: chat(stream),
  });
}

/** Reads a body to its end or its failure: the bytes that arrived, and the error if any. */
async function readAll(response: Response): Promise<{ text: string; failed: boolean }> {
  const reader = response.body?.getReader();
  const parts: Uint8Array[] = [];
  let failed = false;
  try {
    for (;;) {
      const result = await reader!.read();
      if (result.done) break;
      parts.push(result.value);
    }
  } catch {
    failed = true;
  }
  return { text: Buffer.concat(parts).toString("utf8"), failed };
}

const COMPLETION = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
});

describe("upstream faults on POST /v1/chat/completions", () => {
  it("a slow upstream (headers just inside the first-byte timeout, body trickling) is relayed whole", async () => {
    const events = [textChunk("a"), textChunk("b"), textChunk("c"), "data: [DONE]\n\n"];
    upstream.fault = async (_request, response) => {
      await new Promise((done) => setTimeout(done, FIRST_BYTE_MS / 4));
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.flushHeaders();
      for (const event of events) {
        response.write(event);
        await new Promise((done) => setTimeout(done, 50));
      }
      response.end();
    };
    const response = await post(true);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await readAll(response)).toEqual({ text: events.join(""), failed: false });
  });

  it("an upstream that resets mid-stream: the client gets the bytes sent so far, then a broken body", async () => {
    const sent = textChunk("partial ") + textChunk("answer");
    upstream.fault = breaksOffAfter("text/event-stream", sent);
    const response = await post(true);
    expect(response.status).toBe(200);
    expect(await readAll(response)).toEqual({ text: sent, failed: true });
  });

  it("an upstream that resets before answering: 502 without the upstream address", async () => {
    upstream.fault = (_request, response) => {
      response.socket?.destroy();
    };
    const response = await post(false);
    expect(response.status).toBe(502);
    expect(await response.text()).toBe('{"error":"upstream connection failed"}');
  });

  it("malformed SSE passes through byte for byte", async () => {
    const malformed =
      'data: {"choices":[{"delta":\n\nevent\ndata: [DONE\n:comment\n\ndata: \u0000\n\n';
    upstream.fault = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(malformed);
    };
    const response = await post(true);
    expect(response.status).toBe(200);
    expect(await readAll(response)).toEqual({ text: malformed, failed: false });
  });

  it.each([
    [500, "text/plain", "internal failure"],
    [503, "application/json", '{"error":{"message":"overloaded","type":"server_error"}}'],
    [529, "application/json", '{"type":"error","error":{"type":"overloaded_error"}}'],
  ])("a %i from upstream passes through with its body", async (status, type, body) => {
    upstream.fault = (_request, response) => {
      response.writeHead(status, { "content-type": type, "retry-after": "3" });
      response.end(body);
    };
    const response = await post(false);
    expect(response.status).toBe(status);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(await response.text()).toBe(body);
  });

  it("an upstream that never answers: 504 after the first-byte timeout, and its call is aborted", async () => {
    upstream.fault = () => {};
    const response = await post(false);
    expect(response.status).toBe(504);
    expect(await response.text()).toBe(
      `{"error":"upstream sent no response within ${FIRST_BYTE_MS} ms"}`,
    );
    expect(await upstream.received[0]?.closed).toEqual({ finished: false });
  });

  it("a whole answer after a pause longer than the first-byte timeout still arrives if headers came first", async () => {
    upstream.fault = async (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.flushHeaders();
      await new Promise((done) => setTimeout(done, FIRST_BYTE_MS * 2));
      response.end(COMPLETION);
    };
    const response = await post(false);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(COMPLETION);
  });
});

describe("client faults", () => {
  it("a client that disconnects mid-stream aborts the upstream call", async () => {
    const first = textChunk("first");
    upstream.fault = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(first);
      // Holds the stream open: only the client going away can end it.
    };
    const url = new URL(`${base}/v1/chat/completions`);
    const received = await new Promise<string>((done, fail) => {
      const request = httpRequest(
        url,
        { method: "POST", headers: { "content-type": "application/json" } },
        (response) => {
          response.once("data", (chunk: Buffer) => {
            request.destroy();
            done(chunk.toString("utf8"));
          });
        },
      );
      request.on("error", (error) => {
        if (!request.destroyed) fail(error);
      });
      request.end(chat(true));
    });
    expect(received).toBe(first);
    expect(await upstream.received[0]?.closed).toEqual({ finished: false });
  });
});
