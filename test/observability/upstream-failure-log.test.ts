import { createServer } from "node:net";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { configSchema } from "../../src/config/schema.js";
import { createLogger } from "../../src/observability/logger.js";
import { createStore } from "../../src/store/create.js";
import { openaiConversation } from "../support/proxy-harness.js";
import { ScriptedUpstream } from "../support/scripted-upstream.js";

const CREDENTIAL = "sk-client-planted-2b7c";

/** The proxy in front of `baseUrl`; the response to one chat completion and the log lines. */
async function proxyOnce(baseUrl: string) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = configSchema.parse({
    pipeline: ["mask"],
    upstream: { openai: { base_url: baseUrl }, first_byte_timeout_ms: 300 },
  });
  const app = createApp({
    config,
    store: createStore(config.store),
    logger: createLogger({ destination }),
  });
  const response = await app.request("/v1/chat/completions", {
    method: "POST",
    body: JSON.stringify(openaiConversation()),
    headers: { "content-type": "application/json", authorization: `Bearer ${CREDENTIAL}` },
  });
  await response.text();
  return { status: response.status, lines, text: JSON.stringify(lines) };
}

describe("the cause of a proxy 502/504 is logged, without the upstream's address", () => {
  it("an upstream that refuses connections", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((done) => closed.close(() => done()));

    const { status, lines, text } = await proxyOnce(`http://127.0.0.1:${port}/v1`);

    expect(status).toBe(502);
    expect(lines.filter((line) => line.msg === "upstream failed")).toEqual([
      expect.objectContaining({
        level: "warn",
        provider: "openai",
        status: 502,
        cause: "ECONNREFUSED",
      }),
    ]);
    expect(text).not.toMatch(new RegExp(`127\\.0\\.0\\.1|:${port}\\b|${CREDENTIAL}`));
  });

  it.each<[string, Parameters<ScriptedUpstream["reply"]>[0], number, string]>([
    ["an upstream that resets the connection", { reset: true }, 502, "UND_ERR_SOCKET"],
    [
      "an upstream that sends nothing in time",
      { delay: new Promise<void>(() => {}) },
      504,
      "first_byte_timeout",
    ],
  ])("%s", async (_, reply, expected, cause) => {
    const upstream = await ScriptedUpstream.start();
    try {
      upstream.reply(reply);
      const { status, lines } = await proxyOnce(`http://127.0.0.1:${upstream.port}/v1`);
      expect(status).toBe(expected);
      expect(lines.filter((line) => line.msg === "upstream failed")).toEqual([
        expect.objectContaining({ provider: "openai", status: expected, cause }),
      ]);
    } finally {
      await upstream.close();
    }
  });
});
