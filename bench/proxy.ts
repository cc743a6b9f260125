/**
 * Added latency of the proxy routes over calling the upstream directly, on corpus bodies (the
 * chat bodies also in their Responses form, through `POST /v1/responses`).
 *
 *   node --import tsx bench/proxy.ts [corpus-dir] [rounds]
 *
 * A scripted upstream on a loopback port answers every request at once (a JSON completion, or
 * an event stream when the body asks for one). Each corpus body is sent `rounds` times straight
 * to the upstream and through the proxy (compaction with the default `agent` preset, expand-tool
 * injection, the loop's response parsing), interleaved so both see the same machine load.
 * Non-streaming: time to the whole response body. Streaming: time to the first body chunk.
 * The bypass row (`x-context-guru-bypass: true`) isolates the proxy's own plumbing from
 * compaction.
 */

import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve } from "@hono/node-server";
import { createApp } from "../src/app.js";
import { configSchema } from "../src/config/schema.js";
import { createStore } from "../src/store/create.js";
import {
  anthropicEvents,
  anthropicJson,
  openaiEvents,
  openaiJson,
} from "../test/support/model-replies.js";
import { responsesReply } from "../test/support/responses-replies.js";
import { ScriptedUpstream } from "../test/support/scripted-upstream.js";
import { loadCorpus } from "./load-corpus.js";
import { responsesForm } from "./responses-shape.js";

const corpusDir = resolve(
  process.argv[2] ?? resolve(import.meta.dirname, "../../shared/corpus/agent"),
);
const rounds = Number(process.argv[3] ?? 25);
const captured = loadCorpus(corpusDir);
// The chat bodies again as an agent speaking the Responses API sends them (POST /v1/responses).
const bodies = [
  ...captured,
  ...captured
    .filter((item) => item.provider === "openai")
    .map((item) => ({
      ...item,
      name: `${item.name}:responses`,
      provider: "responses" as const,
      body: responsesForm(item.body),
    })),
];

const upstream = await ScriptedUpstream.start();
upstream.script((request) => {
  const streaming = (request.json as { stream?: unknown } | undefined)?.stream === true;
  if (request.url.startsWith("/v1/responses")) {
    return responsesReply(streaming, [{ type: "text", text: "The failing test is in module 3." }]);
  }
  const anthropic = request.url.startsWith("/v1/messages");
  if (anthropic) {
    const blocks = [{ type: "text", text: "The failing test is in module 3." } as const];
    return streaming ? { sse: anthropicEvents(blocks) } : anthropicJson(blocks);
  }
  return streaming
    ? { sse: openaiEvents(["The failing test ", "is in module 3."]) }
    : openaiJson("The failing test is in module 3.");
});
const direct = `http://127.0.0.1:${upstream.port}`;
const config = configSchema.parse({
  log: { level: "silent" },
  upstream: { openai: { base_url: `${direct}/v1` }, anthropic: { base_url: direct } },
});
const store = createStore(config.store);
const app = createApp({ config, store });
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
await new Promise((done) => server.once("listening", done));
const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const paths = {
  openai: "/v1/chat/completions",
  anthropic: "/v1/messages",
  responses: "/v1/responses",
} as const;

/** Milliseconds to the whole body, or to its first chunk. */
async function timed(
  base: string,
  path: string,
  body: string,
  firstChunk: boolean,
  bypass = false,
): Promise<number> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    authorization: "Bearer bench",
  };
  if (bypass) headers["x-context-guru-bypass"] = "true";
  const start = performance.now();
  const response = await fetch(`${base}${path}`, { method: "POST", headers, body });
  if (!response.ok || response.body === null) throw new Error(`${base}${path}: ${response.status}`);
  const reader = response.body.getReader();
  if (firstChunk) {
    await reader.read();
    const elapsed = performance.now() - start;
    while (!(await reader.read()).done) {}
    return elapsed;
  }
  while (!(await reader.read()).done) {}
  return performance.now() - start;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
};

async function measure(streaming: boolean) {
  const times = { direct: [] as number[], bypass: [] as number[], proxy: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const item of bodies) {
      const body = streaming ? withStream(item.body) : item.body;
      const path = paths[item.provider];
      times.direct.push(await timed(direct, path, body, streaming));
      times.bypass.push(await timed(proxy, path, body, streaming, true));
      times.proxy.push(await timed(proxy, path, body, streaming));
    }
  }
  return times;
}

function withStream(body: string): string {
  return `${body.slice(0, body.lastIndexOf("}"))},"stream":true}`;
}

// Warm-up: the first pass compacts every body cold (token counts, memo); agents re-send.
await measure(false);
const rows: string[][] = [];
for (const [label, streaming] of [
  ["non-streaming, whole response", false],
  ["streaming, time to first byte", true],
] as const) {
  const times = await measure(streaming);
  const row = (name: string, values: number[]) => [
    label,
    name,
    fmt(percentile(values, 50)),
    fmt(percentile(values, 99)),
  ];
  const added = (name: string, values: number[]) => [
    label,
    name,
    fmt(percentile(values, 50) - percentile(times.direct, 50)),
    fmt(percentile(values, 99) - percentile(times.direct, 99)),
  ];
  rows.push(
    row("direct", times.direct),
    row("proxy, bypass (plumbing only)", times.bypass),
    row("proxy (compaction + injection)", times.proxy),
    added("added by plumbing", times.bypass),
    added("added in total", times.proxy),
  );
}

function fmt(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

console.log(`${bodies.length} corpus bodies × ${rounds} rounds each (${corpusDir})`);
console.log(["measure", "path", "median", "p99"].join("\t"));
for (const row of rows) console.log(row.join("\t"));

server.close();
await upstream.close();
await store.close();
