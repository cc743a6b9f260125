import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Hono } from "hono";
import { Redis } from "ioredis";
import { createApp } from "../src/app.js";
import { parseConfig } from "../src/config/load.js";
import { createStore } from "../src/store/create.js";
import { withDeadline } from "../src/store/deadline.js";
import { RedisStore } from "../src/store/redis.js";
import { startRedisServer } from "../test/support/redis-server.js";
import { countedStore, noCalls, type StoreCalls } from "./counted-store.js";
import { loadCorpus } from "./load-corpus.js";
import { median, startClock } from "./timing.js";

const USAGE = `usage: node --import tsx bench/redis.ts [options]
  --corpus DIR     folder of {provider, body} JSON files (default ../shared/corpus/agent)
  --redis-url URL  an existing Redis (default: a throwaway redis-server on a free port)
  --passes N       cold passes, each over fresh services (default 5)
  --warm-runs N    repeated requests per body on warm services (default 5)`;

/** One service: the app, and what its store saw (calls, and socket writes for Redis). */
interface Service {
  readonly app: Hono;
  readonly calls: StoreCalls;
  writes: number;
  close(): Promise<void>;
}

function memoryService(): Service {
  const config = parseConfig({});
  const calls = noCalls();
  const store = countedStore(createStore(config.store), calls);
  return { app: createApp({ config, store }), calls, writes: 0, close: () => store.close() };
}

async function redisService(url: string): Promise<Service> {
  const config = parseConfig({ store: { backend: "redis", redis: { url } } });
  const redis = new RedisStore(config.store, { onError: () => undefined });
  const calls = noCalls();
  const store = countedStore(withDeadline(redis, config.store.timeout_ms), calls);
  for (let attempt = 0; !(await redis.ready()); attempt++) {
    if (attempt > 100) throw new Error(`Redis at ${url} is not ready`);
    await new Promise((done) => setTimeout(done, 50));
  }
  const service: Service = {
    app: createApp({ config, store }),
    calls,
    writes: 0,
    close: () => store.close(),
  };
  // Each write to the socket is one round trip here: every store call awaits its reply.
  const stream = (redis.redis as Redis).stream;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    service.writes++;
    return write(...args);
  }) as typeof stream.write;
  return service;
}

interface Sample {
  /** Wall time of the request. */
  readonly ms: number;
  /** CPU time of this process during the request (the client side of the store included). */
  readonly cpuMs: number;
  readonly markers: number;
  readonly writes: number;
  readonly calls: StoreCalls;
}

async function compact(service: Service, body: string, session: string): Promise<Sample> {
  const before = { writes: service.writes, calls: { ...service.calls } };
  const stop = startClock();
  const response = await service.app.request("/compact", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-context-guru-session": session },
  });
  await response.text();
  const { wallMs: ms, cpuMs } = stop();
  if (response.status !== 200) throw new Error(`POST /compact answered ${response.status}`);
  const calls = noCalls();
  for (const key of Object.keys(calls) as (keyof StoreCalls)[]) {
    calls[key] = service.calls[key] - before.calls[key];
  }
  const markers = Number(response.headers.get("x-context-guru-markers") ?? "0");
  return { ms, cpuMs, markers, writes: service.writes - before.writes, calls };
}

const fmt = (value: number) => value.toFixed(2);
const spread = (values: readonly number[]) =>
  `min ${Math.min(...values)}, median ${median(values)}, max ${Math.max(...values)}`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: "string" },
      "redis-url": { type: "string" },
      passes: { type: "string" },
      "warm-runs": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) return void console.log(USAGE);
  const passes = Number(values.passes ?? 5);
  const warmRuns = Number(values["warm-runs"] ?? 5);
  if (!Number.isInteger(passes) || passes < 1)
    throw new Error("--passes must be a positive integer");
  if (!Number.isInteger(warmRuns) || warmRuns < 0)
    throw new Error("--warm-runs must be an integer ≥ 0");
  const dir = resolve(values.corpus ?? resolve(import.meta.dirname, "../../shared/corpus/agent"));
  const bodies = loadCorpus(dir);
  const server = values["redis-url"] ? undefined : await startRedisServer();
  const url = values["redis-url"] ?? server?.url ?? "";
  const admin = new Redis(url);
  console.log(`corpus: ${dir}: ${bodies.length} bodies; Redis ${url}`);

  const cold = { memory: [] as number[], redis: [] as number[], ratios: [] as number[] };
  const cpu = { memory: [] as number[], redis: [] as number[] };
  const warm = { memory: [] as number[], redis: [] as number[] };
  const trips: Sample[] = [];
  try {
    for (let pass = 0; pass < passes; pass++) {
      await admin.flushdb();
      const memory = memoryService();
      const redis = await redisService(url);
      for (const entry of bodies) {
        const session = `${entry.session}#${pass}`;
        const onMemory = await compact(memory, entry.body, session);
        const onRedis = await compact(redis, entry.body, session);
        cold.memory.push(onMemory.ms);
        cold.redis.push(onRedis.ms);
        cold.ratios.push(onRedis.ms / onMemory.ms);
        cpu.memory.push(onMemory.cpuMs);
        cpu.redis.push(onRedis.cpuMs);
        trips.push(onRedis);
      }
      if (pass === 0) {
        for (let run = 0; run < warmRuns; run++) {
          for (const entry of bodies) {
            warm.memory.push((await compact(memory, entry.body, entry.session)).ms);
            warm.redis.push((await compact(redis, entry.body, entry.session)).ms);
          }
        }
      }
      await Promise.all([memory.close(), redis.close()]);
    }
  } finally {
    admin.disconnect();
    await server?.close();
  }

  const stashing = trips.filter((sample) => sample.calls.put > 0);
  const row = (name: string, memory: number[], redis: number[]) =>
    `${name.padEnd(6)} memory ${fmt(median(memory))} ms   redis ${fmt(median(redis))} ms   ` +
    `ratio of medians ${fmt(median(redis) / median(memory))}`;
  console.log(`\n/compact median wall time (${passes} cold passes, ${warmRuns} warm runs)`);
  console.log(row("cold", cold.memory, cold.redis));
  console.log(`       median of per-body ratios ${fmt(median(cold.ratios))}`);
  console.log(row("cpu", cpu.memory, cpu.redis).replace(/ ms/g, " ms cpu"));
  if (warm.memory.length > 0) console.log(row("warm", warm.memory, warm.redis));
  console.log(`\nRedis round trips (socket writes) per /compact, ${trips.length} requests`);
  console.log(`  all requests:        ${spread(trips.map((sample) => sample.writes))}`);
  if (stashing.length > 0) {
    console.log(`  requests that stash: ${spread(stashing.map((sample) => sample.writes))}`);
    const calls = stashing[0]?.calls;
    console.log(`  store calls of a stashing request: ${JSON.stringify(calls)}`);
    const entries = stashing.map((sample) => sample.markers);
    console.log(`  markers per stashing request: ${spread(entries)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  console.error(USAGE);
  process.exitCode = 1;
});
