/**
 * Load run of POST /compact (§10), with autocannon against a real server on an ephemeral port:
 * a bare Hono echo server that parses and re-serialises the same bodies (the floor), then the
 * service in reversible mode (the default) and in clean mode (store disabled, marker_mode off).
 * Reports throughput, p50/p99 latency, errors and resident memory before, during and after.
 * `--sustain S` adds an S-second run with a unique body on every request and a small store
 * byte limit, sampling memory as the store fills and evicts.
 *
 * `--big-body` runs the big-body scenario instead (scripts/load-big-body.ts): small requests
 * alone and beside 4, 16 and 32 MiB bodies, /livez throughout, a 500 ms deadline, eight
 * worst-case bodies at the shipped heap.
 *
 * `--huge-output` runs the huge-output scenario (scripts/load-huge-output.ts): bodies of 1, 9
 * and 24 MB with one huge output each, compacted in reversible and clean mode, cold and with no
 * cache header (decided as a warm turn), against the time of parsing and serialising them,
 * /rehydrate byte for byte, /livez and peak memory.
 *
 * `--redis-cluster` runs the reversible service on Redis instead: one standalone redis-server,
 * then a 6-node Redis Cluster on loopback (3 masters, 3 replicas), same bodies and connections,
 * and prints the cluster's throughput and p99 as ratios of standalone's.
 *
 *   npm run load -- --connections 16 --duration 10 [--corpus DIR] [--sustain 60]
 *     [--sustain-max-bytes B] [--sustain-memo-bytes B] [--sustain-connections N]
 *   npm run load -- --huge-output [--huge-output-sizes 1,9,24] [--huge-output-samples 3]
 *     [--huge-output-cache cold,unknown] [--huge-output-kinds make,tests,jsonl,api,blob,ansi,yaml,table,seq,yes]
 *   npm run load -- --big-body [--big-body-rate 100] [--big-body-connections 4] [--duration 10]
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { generateCorpus } from "../bench/corpus/generate.js";
import { echoApp } from "../bench/echo-app.js";
import { ALL_HUGE_KINDS, HUGE_KINDS, type HugeKind } from "../bench/huge-output-bodies.js";
import { loadCorpus } from "../bench/load-corpus.js";
import { createApp, defaultPool } from "../src/app.js";
import type { WorkerPool } from "../src/compaction/worker-pool.js";
import { parseConfig } from "../src/config/load.js";
import type { ConfigInput } from "../src/config/schema.js";
import { randomHashKey } from "../src/hash-key/random.js";
import { createStore } from "../src/store/create.js";
import type { Store } from "../src/store/types.js";
import { startRedisCluster } from "../test/support/redis-cluster.js";
import { startRedisServer } from "../test/support/redis-server.js";
import { bigBodyScenario } from "./load-big-body.js";
import { HUGE_CACHES, type HugeCache, hugeOutputScenario } from "./load-huge-output.js";

interface LoadRequest {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface LoadResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  throughput: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<LoadResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "16" },
    duration: { type: "string", default: "10" },
    corpus: { type: "string" },
    sustain: { type: "string", default: "0" },
    "sustain-max-bytes": { type: "string", default: String(16 * 1024 * 1024) },
    "sustain-memo-bytes": { type: "string", default: String(16 * 1024 * 1024) },
    "sustain-connections": { type: "string", default: "4" },
    "big-body": { type: "boolean", default: false },
    "huge-output": { type: "boolean", default: false },
    "huge-output-sizes": { type: "string", default: "1,9,24" },
    "huge-output-samples": { type: "string", default: "3" },
    "huge-output-cache": { type: "string", default: "cold,unknown" },
    "huge-output-kinds": { type: "string", default: HUGE_KINDS.join(",") },
    "redis-cluster": { type: "boolean", default: false },
    "big-body-rate": { type: "string", default: "100" },
    "big-body-connections": { type: "string", default: "4" },
  },
});
const connections = wholeNumber(values.connections, "connections");
const duration = wholeNumber(values.duration, "duration");
const sustain = wholeNumber(values.sustain, "sustain", true);
const sustainMaxBytes = wholeNumber(values["sustain-max-bytes"], "sustain-max-bytes");
const sustainMemoBytes = wholeNumber(values["sustain-memo-bytes"], "sustain-memo-bytes");
const sustainConnections = wholeNumber(values["sustain-connections"], "sustain-connections");

function wholeNumber(text: string | undefined, name: string, zero = false): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < (zero ? 0 : 1)) {
    process.stderr.write(`--${name} must be a whole number, got ${text}\n`);
    process.exit(2);
  }
  return value;
}

const sharedCorpus = resolve(import.meta.dirname, "../../shared/corpus/agent");
const corpusDir = values.corpus ?? (existsSync(sharedCorpus) ? sharedCorpus : undefined);
const bodies = corpusDir
  ? loadCorpus(corpusDir).map(({ body, session }) => ({ body, session }))
  : generateCorpus({ sessions: 6, seed: 1 }).map(({ body, session, provider }) => ({
      body,
      session: `${session}/${provider}`,
    }));
const source = corpusDir ?? "generated corpus (6 sessions, seed 1)";
const payloadBytes = bodies.reduce((sum, { body }) => sum + Buffer.byteLength(body), 0);

const requests: LoadRequest[] = bodies.map(({ body, session }) => ({
  method: "POST",
  path: "/compact",
  headers: {
    "content-type": "application/json",
    "x-context-guru-session": session.replace(/\//g, "-"),
  },
  body,
}));

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function errorText(result: LoadResult): string {
  const total = result.errors + result.non2xx;
  return `errors ${total} (${result.timeouts} timeouts, ${result.non2xx} non-2xx)`;
}

/** Heap still reachable: after a full collection when the process runs with --expose-gc. */
function retainedHeap(): string {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) return "n/a (run with --expose-gc)";
  collect();
  return mb(process.memoryUsage().heapUsed);
}

/** Resident memory sampled every 250 ms while `work` runs: the peak and the samples. */
async function sampled<T>(
  work: () => Promise<T>,
): Promise<{ value: T; peak: number; samples: number[] }> {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(process.memoryUsage().rss), 250);
  try {
    const value = await work();
    return { value, peak: Math.max(...samples, process.memoryUsage().rss), samples };
  } finally {
    clearInterval(timer);
  }
}

async function listen(app: Hono): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((done) => {
    const server = serve(
      { fetch: app.fetch, port: 0, hostname: "127.0.0.1" },
      (info: AddressInfo) =>
        done({
          url: `http://127.0.0.1:${info.port}`,
          close: () => new Promise((closed) => server.close(() => closed())),
        }),
    );
  });
}

function run(url: string, seconds: number, list: LoadRequest[], idReplacement = false) {
  return autocannon({
    url,
    connections: idReplacement ? sustainConnections : connections,
    duration: seconds,
    requests: list,
    idReplacement,
    workers: 1,
  });
}

interface Service {
  readonly app: Hono;
  readonly store: Store;
  /** Its worker threads, loaded before the run as a started server's are. */
  readonly pool: WorkerPool;
}

async function serviceApp(input: ConfigInput): Promise<Service> {
  const config = parseConfig(input);
  const store = createStore(config.store);
  const hashKey = randomHashKey();
  const pool = defaultPool(config, store, hashKey);
  await pool.warm();
  return { app: createApp({ config, store, hashKey, pool }), store, pool };
}

/** Each body once, in order, so the run measures the warm path agents see turn after turn. */
async function warm(url: string): Promise<void> {
  for (const request of requests) {
    const response = await fetch(`${url}${request.path}`, {
      method: "POST",
      headers: request.headers,
      body: request.body,
    });
    if (response.status !== 200) throw new Error(`warm-up answered ${response.status}`);
    await response.arrayBuffer();
  }
}

interface Row {
  name: string;
  result: LoadResult;
  rss: { before: number; peak: number; after: number };
  heap: string;
}

async function measure(name: string, app: Hono): Promise<Row> {
  const server = await listen(app);
  await warm(server.url);
  const before = process.memoryUsage().rss;
  const { value: result, peak } = await sampled(() => run(server.url, duration, requests));
  await server.close();
  return {
    name,
    result,
    rss: { before, peak, after: process.memoryUsage().rss },
    heap: retainedHeap(),
  };
}

function describeRow({ name, result, rss, heap }: Row, floor?: Row): string {
  const ratio = floor
    ? ` (${(result.requests.average / floor.result.requests.average).toFixed(2)}× echo)`
    : "";
  return (
    `${name.padEnd(11)} ${result.requests.average.toFixed(1).padStart(8)} req/s${ratio.padEnd(12)} ` +
    `p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  ${errorText(result)}  ` +
    `rss ${mb(rss.before)} → peak ${mb(rss.peak)} → ${mb(rss.after)}, heap after GC ${heap}`
  );
}

if (values["huge-output"]) {
  const sizes = (values["huge-output-sizes"] ?? "")
    .split(",")
    .map((size) => wholeNumber(size, "huge-output-sizes"));
  const samples = wholeNumber(values["huge-output-samples"], "huge-output-samples");
  const caches = (values["huge-output-cache"] ?? "").split(",").map((cache) => {
    if (!(HUGE_CACHES as readonly string[]).includes(cache)) {
      throw new Error(`--huge-output-cache: ${cache} is not one of ${HUGE_CACHES.join(", ")}`);
    }
    return cache as HugeCache;
  });
  const kinds = (values["huge-output-kinds"] ?? "").split(",").map((kind) => {
    if (!(ALL_HUGE_KINDS as readonly string[]).includes(kind)) {
      throw new Error(`--huge-output-kinds: ${kind} is not one of ${ALL_HUGE_KINDS.join(", ")}`);
    }
    return kind as HugeKind;
  });
  process.exit((await hugeOutputScenario(sizes, samples, caches, kinds)) ? 0 : 1);
}

if (values["big-body"]) {
  console.log(`big body: small requests are the ${bodies.length} bodies from ${source}`);
  const met = await bigBodyScenario({
    requests,
    connections: wholeNumber(values["big-body-connections"], "big-body-connections"),
    rate: wholeNumber(values["big-body-rate"], "big-body-rate"),
    seconds: duration,
  });
  process.exit(met ? 0 : 1);
}

if (values["redis-cluster"]) {
  console.log(
    `load on Redis: ${bodies.length} bodies (${mb(payloadBytes)}) from ${source}; ${connections} connections × ${duration} s`,
  );
  const standalone = await startRedisServer();
  const cluster = await startRedisCluster();
  const rows: Row[] = [];
  const failing: string[] = [];
  const targets: [string, NonNullable<ConfigInput["store"]>["redis"]][] = [
    ["standalone", { url: standalone.url }],
    ["cluster", { mode: "cluster", nodes: [...cluster.seeds] }],
  ];
  for (const [name, redis] of targets) {
    const service = await serviceApp({ store: { backend: "redis", redis } });
    for (let attempt = 0; attempt < 100 && !(await service.store.ready()); attempt++) {
      await new Promise((done) => setTimeout(done, 100));
    }
    const row = await measure(name, service.app);
    await Promise.all([service.pool.close(), service.store.close()]);
    console.log(describeRow(row));
    if (row.result.errors + row.result.non2xx > 0) failing.push(name);
    rows.push(row);
  }
  const [one, many] = rows.map(({ result }) => result);
  if (one && many) {
    console.log(
      `cluster / standalone: req/s ${(many.requests.average / one.requests.average).toFixed(2)}, ` +
        `p99 ${(many.latency.p99 / one.latency.p99).toFixed(2)}`,
    );
  }
  await Promise.all([standalone.close(), cluster.close()]);
  process.exit(failing.length > 0 ? 1 : 0);
}

console.log(
  `load: ${bodies.length} bodies (${mb(payloadBytes)}) from ${source}; ${connections} connections × ${duration} s`,
);
const echo = await measure("echo", echoApp());
console.log(describeRow(echo));
const reversibleService = await serviceApp({});
const reversible = await measure("reversible", reversibleService.app);
await reversibleService.pool.close();
console.log(describeRow(reversible, echo));
const cleanService = await serviceApp({ store: { enabled: false }, marker_mode: "off" });
const clean = await measure("clean", cleanService.app);
await cleanService.pool.close();
console.log(describeRow(clean, echo));
let failed = [echo, reversible, clean].some(({ result }) => result.errors + result.non2xx > 0);

if (sustain > 0) {
  // The byte limit, not the entry count, is the bound that must hold (lru-cache preallocates
  // per entry slot, so the count stays moderate).
  // The memos (token counts, component results, ids) are the other bounded cache that unique
  // traffic fills; a budget the size of the store's lets both fill within the run.
  const { app, store, pool } = await serviceApp({
    store: { max_bytes: sustainMaxBytes, max_entries: 200_000 },
    limits: { memo_bytes: sustainMemoBytes },
  });
  const server = await listen(app);
  // Every tool output (every content string) gets a fresh id: nothing repeats, every stash is new.
  const unique = requests.map(({ headers, ...request }) => ({
    ...request,
    headers: { "content-type": headers["content-type"] ?? "application/json" },
    body: request.body.replace(/"content":"/g, '"content":"[<id>] '),
  }));
  const before = process.memoryUsage().rss;
  const heapBefore = retainedHeap();
  const {
    value: result,
    peak,
    samples,
  } = await sampled(() => run(server.url, sustain, unique, true));
  const stats = await store.stats();
  await server.close();
  await pool.close();
  const after = process.memoryUsage().rss;
  const tenths = Array.from(
    { length: 10 },
    (_, i) => samples[Math.floor(((i + 1) * samples.length) / 10) - 1] ?? 0,
  );
  failed ||= result.errors + result.non2xx > 0;
  console.log(
    `sustain ${sustain} s, unique bodies, store max_bytes ${mb(sustainMaxBytes)}: ${result.requests.total} requests ` +
      `(${result.requests.average.toFixed(1)} req/s, ${sustainConnections} connections), ${errorText(result)}, store ${stats.entries} entries / ${mb(stats.bytes)}, memo budget ${mb(sustainMemoBytes)}`,
  );
  console.log(
    `  rss before ${mb(before)}, peak ${mb(peak)}, after ${mb(after)}, growth ${mb(peak - before)}; ` +
      `retained heap ${heapBefore} → ${retainedHeap()}`,
  );
  console.log(`  rss by tenth of the run: ${tenths.map(mb).join(", ")}`);
}

process.exit(failed ? 1 : 0);
