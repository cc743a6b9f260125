import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { createLogger } from "../../src/observability/logger.js";
import { createStore } from "../../src/store/create.js";
import { sample } from "../observability/prometheus-text.js";
import { breaksOffAfter, FaultUpstream, textChunk } from "./fault-upstream.js";

/**
 * What the proxy holds back while it decides whether a response opens with an expand call
 * (§8.2), over a real server and a loopback upstream: at most `upstream.max_expand_buffer_bytes`
 * and at most `upstream.first_byte_timeout_ms` per round; beyond either the client gets what
 * arrived and the rest as it comes, and a response that breaks off reaches the client as the
 * bytes received and a broken body, logged as what it was.
 */
const FIRST_BYTE_MS = 400;
const BUFFER_BYTES = 64 * 1024;
let upstream: FaultUpstream;
let server: ServerType;
let base: string;
const lines: Array<Record<string, unknown>> = [];
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  upstream = await FaultUpstream.start();
  const config = parseConfig({
    upstream: {
      openai: { base_url: `${upstream.url}/v1` },
      first_byte_timeout_ms: FIRST_BYTE_MS,
      max_expand_buffer_bytes: BUFFER_BYTES,
    },
  });
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  app = createApp({
    config,
    store: createStore(config.store),
    logger: createLogger({ destination }),
  });
  base = await new Promise<string>((done) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) =>
      done(`http://127.0.0.1:${info.port}`),
    );
  });
});
afterEach(() => {
  upstream.received.length = 0;
  lines.length = 0;
});
afterAll(async () => {
  await upstream.close();
  await new Promise<void>((done) => server.close(() => done()));
});

const chat = (stream: boolean) =>
  JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: "hello" }] });

/** The wire text of an OpenAI chunk that opens a call of the expand tool. */
const expandOpening = `data: ${JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  choices: [
    {
      index: 0,
      delta: {
        role: "assistant",
        tool_calls: [
          {
            index: 0,
            id: "call_1",
            type: "function",
            function: { name: "context_guru_expand", arguments: "" },
          },
        ],
      },
      finish_reason: null,
    },
  ],
})}\n\n`;

/** Reads until `enough` bytes arrived (then stops), the body ends, or it fails. */
async function readUpTo(
  response: Response,
  enough = Number.POSITIVE_INFINITY,
): Promise<{ text: string; failed: boolean }> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let failed = false;
  try {
    while (size < enough) {
      const result = await reader.read();
      if (result.done) break;
      parts.push(result.value);
      size += result.value.length;
    }
  } catch {
    failed = true;
  }
  if (size >= enough) await reader.cancel().catch(() => undefined);
  return { text: Buffer.concat(parts).toString("utf8"), failed };
}

function post(stream: boolean): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: chat(stream),
  });
}

/** The response's log line once it is written (a streamed body is logged when it ends). */
async function logLine(response: Response): Promise<Record<string, unknown>> {
  const id = response.headers.get("x-request-id");
  for (let tries = 0; tries < 200; tries++) {
    const line = lines.find((entry) => entry.msg === "request" && entry.request_id === id);
    if (line) return line;
    await new Promise((done) => setTimeout(done, 10));
  }
  throw new Error("no request log line");
}

describe("the expand-opening buffer", { timeout: 30_000 }, () => {
  it("streams a response that opens with an expand call through once it outgrows the buffer", async () => {
    const filler = textChunk("x".repeat(1000));
    const sent = expandOpening + filler.repeat(Math.ceil((3 * BUFFER_BYTES) / filler.length));
    upstream.fault = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sent);
      // Never ends: only what was already sent can reach the client.
    };

    const response = await post(true);
    const received = await readUpTo(response, Buffer.byteLength(sent));

    expect(response.status).toBe(200);
    expect(received.text).toBe(sent);
    expect(upstream.received).toHaveLength(1);
    const metrics = await (await app.request("/metrics")).text();
    expect(sample(metrics, "cg_expand_bails_total", { reason: "buffer_limit" })).toBe(1);
  });

  it("streams what arrived once the round's first-byte deadline passes undecided", async () => {
    upstream.fault = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(expandOpening);
      // Silent from here on.
    };

    const response = await post(true);
    const received = await readUpTo(response, Buffer.byteLength(expandOpening));

    expect(response.status).toBe(200);
    expect(received.text).toBe(expandOpening);
  });
});

describe("a response that breaks off", { timeout: 30_000 }, () => {
  it("while it is held to see whether it calls expand: the bytes so far, then a broken body", async () => {
    const sent = expandOpening + textChunk("partial");
    upstream.fault = breaksOffAfter("text/event-stream", sent);

    const response = await post(true);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await readUpTo(response)).toEqual({ text: sent, failed: true });
    expect(await logLine(response)).toMatchObject({ status: 502, sent_status: 200 });
  });

  it("a JSON answer cut off mid-body: the bytes so far, then a broken body", async () => {
    const sent = '{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assi';
    upstream.fault = breaksOffAfter("application/json", sent);

    const response = await post(false);

    expect(response.status).toBe(200);
    expect(await readUpTo(response)).toEqual({ text: sent, failed: true });
    expect(await logLine(response)).toMatchObject({ status: 502, sent_status: 200 });
  });

  it("a streamed answer that completes is logged with its status", async () => {
    const sent = `${textChunk("whole")}data: [DONE]\n\n`;
    upstream.fault = (_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(sent);
    };

    const response = await post(true);

    expect(await readUpTo(response)).toEqual({ text: sent, failed: false });
    const line = await logLine(response);
    expect(line.status).toBe(200);
    expect(line.sent_status).toBeUndefined();
  });
});
