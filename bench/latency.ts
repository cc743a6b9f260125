/**
 * Latency of /compact against what any JSON service pays (§11): for each mode, the same bodies
 * through the Compactor alone, POST /compact in-process (`app.request`), and POST /compact over
 * HTTP on a loopback socket, cold (a fresh service meets each body decided whole) and warm (the
 * same body again as the next turn of its session: every message already sent, the memos
 * holding it). Each pass is set against two floors measured in the same run: one JSON parse and
 * one stringify of the body, and a bare echo service (a Hono app that parses and re-serialises
 * the body) asked the same way — in-process for the in-process passes, over HTTP for the HTTP
 * one. Warm samples alternate with samples of their floors (the Compactor with a parse and a
 * stringify, POST /compact with the echo asked the same way), so a machine whose load changes
 * during the run weighs on both alike. Times are CPU time of the whole process (every thread,
 * the HTTP client included, for the echo as for the service), medians per body; `--min-bytes`
 * keeps only the bodies of at least that many bytes.
 *
 *   npm run bench:latency -- [--corpus DIR] [--modes reversible,clean] [--cold-passes N]
 *     [--warm-runs N] [--floor-runs N] [--min-bytes N] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { createApp, defaultPool } from "../src/app.js";
import { type CompactOptions, Compactor } from "../src/compact/compactor.js";
import type { WorkerPool } from "../src/compaction/worker-pool.js";
import { components } from "../src/components/registry.js";
import { parseConfig } from "../src/config/load.js";
import type { ConfigInput } from "../src/config/schema.js";
import { createStore } from "../src/store/create.js";
import type { BenchBody } from "./bench-body.js";
import { generateCorpus } from "./corpus/generate.js";
import { echoApp } from "./echo-app.js";
import { loadCorpus } from "./load-corpus.js";
import { type Elapsed, median, medians, parseStringify, startClock } from "./timing.js";

type Mode = "reversible" | "clean";
type Pass = "core" | "app" | "http";

const HASH_KEY = "cg-compactor-latency-bench-key";
const COLD = { "x-context-guru-cache": "cold" };

/** Defaults, but no deadline: a slow turn on a loaded machine is measured, not passed through. */
function configOf(mode: Mode): ConfigInput {
  const base: ConfigInput = { limits: { compact_timeout_ms: 600_000 } };
  return mode === "clean" ? { ...base, store: { enabled: false }, marker_mode: "off" } : base;
}

interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

function listen(app: Hono): Promise<Listening> {
  return new Promise((done) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
      done({
        url: `http://127.0.0.1:${(info as AddressInfo).port}`,
        close: () => new Promise((closed) => server.close(() => closed())),
      }),
    );
  });
}

function headersOf(body: string, extra: Readonly<Record<string, string>>, session?: string) {
  return {
    ...extra,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    ...(session === undefined ? {} : { "x-context-guru-session": session }),
  };
}

/** One POST in-process: from a built request to the response body read back. */
async function postInProcess(
  app: Hono,
  body: string,
  extra: Readonly<Record<string, string>> = {},
  session?: string,
): Promise<Elapsed> {
  const request = new Request("http://localhost/compact", {
    method: "POST",
    body,
    headers: headersOf(body, extra, session),
  });
  const stop = startClock();
  const response = await app.request(request);
  await response.text();
  const elapsed = stop();
  if (response.status !== 200) throw new Error(`POST /compact answered ${response.status}`);
  return elapsed;
}

/** One POST over the loopback socket: the client's work and the server's, in one process. */
async function postHttp(
  url: string,
  body: string,
  extra: Readonly<Record<string, string>> = {},
  session?: string,
): Promise<Elapsed> {
  const stop = startClock();
  const response = await fetch(`${url}/compact`, {
    method: "POST",
    body,
    headers: headersOf(body, extra, session),
  });
  await response.text();
  const elapsed = stop();
  if (response.status !== 200) throw new Error(`POST /compact answered ${response.status}`);
  return elapsed;
}

/** A fresh service: its app (workers loaded), a server on it, and a bare Compactor beside. */
class Service {
  private constructor(
    readonly app: Hono,
    readonly core: Compactor,
    readonly server: Listening,
    private readonly pool: WorkerPool,
  ) {}

  static async start(mode: Mode): Promise<Service> {
    const config = parseConfig(configOf(mode));
    const store = createStore(config.store);
    const pool = defaultPool(config, store, HASH_KEY);
    await pool.warm();
    const app = createApp({ config, store, hashKey: HASH_KEY, pool });
    const core = new Compactor({
      config,
      store: createStore(config.store),
      registry: components,
      hashKey: HASH_KEY,
    });
    return new Service(app, core, await listen(app), pool);
  }

  async compactCore(body: string, options: CompactOptions = {}): Promise<Elapsed> {
    const stop = startClock();
    await this.core.compact(body, options);
    return stop();
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.pool.close();
  }
}

interface PassFigures {
  /** Median over bodies of the per-body median CPU ms. */
  readonly medianMs: number;
  /** Σ over bodies of the per-body median CPU ms. */
  readonly totalMs: number;
  /** Σ pass / Σ parse+stringify, and the median over bodies of the per-body ratio. */
  readonly floorRatio: number;
  readonly floorMedianRatio: number;
  /** Σ pass / Σ echo (in-process echo for in-process passes, HTTP echo for HTTP). */
  readonly echoRatio: number;
  readonly echoMedianRatio: number;
}

interface ModeFigures {
  readonly mode: Mode;
  readonly floorMs: number;
  readonly echoMs: { readonly inProcess: number; readonly http: number };
  readonly cold: Record<Pass, PassFigures>;
  readonly warm: Record<Pass, PassFigures>;
}

interface Options {
  readonly coldPasses: number;
  readonly warmRuns: number;
  readonly floorRuns: number;
}

async function measureMode(
  bodies: readonly BenchBody[],
  mode: Mode,
  options: Options,
): Promise<ModeFigures> {
  const floors = bodies.map((item) => parseStringify(item.body, options.floorRuns).cpuMs);

  const echo = echoApp();
  const echoServer = await listen(echo);
  const echoInProcess: number[] = [];
  const echoHttp: number[] = [];
  for (const item of bodies) {
    const local: Elapsed[] = [];
    const remote: Elapsed[] = [];
    // Two unmeasured rounds first, as the service's warm pass has met each body before.
    for (let run = 0; run < options.warmRuns + 2; run++) {
      const inProcess = await postInProcess(echo, item.body);
      const http = await postHttp(echoServer.url, item.body);
      if (run < 2) continue;
      local.push(inProcess);
      remote.push(http);
    }
    echoInProcess.push(medians(local).cpuMs);
    echoHttp.push(medians(remote).cpuMs);
  }
  await echoServer.close();

  // One unmeasured service first: module loading and JIT warm-up are nobody's cold path.
  const warmup = await Service.start(mode);
  for (const item of bodies) {
    await postInProcess(warmup.app, item.body, COLD);
    await postHttp(warmup.server.url, item.body, COLD);
    await warmup.compactCore(item.body, { cache: "cold" });
  }
  await warmup.close();

  const cold: Record<Pass, number[][]> = {
    core: bodies.map(() => []),
    app: bodies.map(() => []),
    http: bodies.map(() => []),
  };
  // Each pass kind gets a service of its own, so every cold request is a first sight.
  let services: Record<Pass, Service> | undefined;
  for (let pass = 0; pass < options.coldPasses; pass++) {
    if (services) await Promise.all(Object.values(services).map((service) => service.close()));
    services = {
      core: await Service.start(mode),
      app: await Service.start(mode),
      http: await Service.start(mode),
    };
    for (const [index, item] of bodies.entries()) {
      cold.core[index]?.push((await services.core.compactCore(item.body, { cache: "cold" })).cpuMs);
      cold.app[index]?.push((await postInProcess(services.app.app, item.body, COLD)).cpuMs);
      cold.http[index]?.push((await postHttp(services.http.server.url, item.body, COLD)).cpuMs);
    }
  }
  if (!services) throw new Error("--cold-passes must be at least 1");

  // Warm: the same body again, in its session, each service having met it decided whole; each
  // sample followed by one of its floor, so both meet the machine as it is at that moment.
  const echoAgain = await listen(echo);
  const warm: Record<Pass, number[]> = { core: [], app: [], http: [] };
  const warmFloors: Record<Pass, number[]> = { core: [], app: [], http: [] };
  for (const item of bodies) {
    const session = item.session;
    const first = {
      core: () => services.core.compactCore(item.body, { session }),
      app: () => postInProcess(services.app.app, item.body, {}, session),
      http: () => postHttp(services.http.server.url, item.body, {}, session),
    };
    const floor = {
      core: async () => parseStringify(item.body, 1),
      app: () => postInProcess(echo, item.body),
      http: () => postHttp(echoAgain.url, item.body),
    };
    for (const pass of ["core", "app", "http"] as const) {
      await first[pass]();
      const samples: number[] = [];
      const floors: number[] = [];
      for (let run = 0; run < options.warmRuns; run++) {
        samples.push((await first[pass]()).cpuMs);
        floors.push((await floor[pass]()).cpuMs);
      }
      warm[pass].push(median(samples));
      warmFloors[pass].push(median(floors));
    }
  }
  await echoAgain.close();
  await Promise.all(Object.values(services).map((service) => service.close()));

  const figures = (
    times: readonly number[],
    echoes: readonly number[],
    parses: readonly number[] = floors,
  ): PassFigures => ({
    medianMs: median(times),
    totalMs: sum(times),
    floorRatio: sum(times) / sum(parses),
    floorMedianRatio: median(times.map((time, index) => time / (parses[index] as number))),
    echoRatio: sum(times) / sum(echoes),
    echoMedianRatio: median(times.map((time, index) => time / (echoes[index] as number))),
  });
  const coldTimes = (pass: Pass) => cold[pass].map((samples) => median(samples));
  return {
    mode,
    floorMs: sum(floors),
    echoMs: { inProcess: sum(echoInProcess), http: sum(echoHttp) },
    cold: {
      core: figures(coldTimes("core"), echoInProcess),
      app: figures(coldTimes("app"), echoInProcess),
      http: figures(coldTimes("http"), echoHttp),
    },
    warm: {
      core: figures(warm.core, warmFloors.app, warmFloors.core),
      app: figures(warm.app, warmFloors.app, warmFloors.core),
      http: figures(warm.http, warmFloors.http, warmFloors.core),
    },
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

const PASS_NAMES: Record<Pass, string> = {
  core: "Compactor (in-process)",
  app: "POST /compact (in-process)",
  http: "POST /compact (HTTP)",
};

function render(results: readonly ModeFigures[]): string {
  const lines = [
    "| mode | path | pass | median ms | Σ ms | × parse+stringify (Σ / median) | × echo (Σ / median) |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const result of results) {
    for (const state of ["warm", "cold"] as const) {
      for (const pass of ["core", "app", "http"] as const) {
        const row = result[state][pass];
        lines.push(
          `| ${result.mode} | ${PASS_NAMES[pass]} | ${state} | ${row.medianMs.toFixed(2)} | ` +
            `${row.totalMs.toFixed(0)} | ${row.floorRatio.toFixed(2)} / ${row.floorMedianRatio.toFixed(2)} | ` +
            `${row.echoRatio.toFixed(2)} / ${row.echoMedianRatio.toFixed(2)} |`,
        );
      }
    }
  }
  const floors = results.map(
    (result) =>
      `${result.mode}: Σ parse+stringify ${result.floorMs.toFixed(0)} ms, ` +
      `Σ echo in-process ${result.echoMs.inProcess.toFixed(0)} ms, ` +
      `Σ echo HTTP ${result.echoMs.http.toFixed(0)} ms`,
  );
  return [...lines, "", ...floors].join("\n");
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new Error(`--${name} must be a positive integer`);
  }
  return parsed;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: "string" },
      modes: { type: "string" },
      "cold-passes": { type: "string" },
      "warm-runs": { type: "string" },
      "floor-runs": { type: "string" },
      "min-bytes": { type: "string" },
      json: { type: "string" },
    },
  });
  const modes = (values.modes ?? "reversible,clean").split(",").map((mode) => mode.trim());
  for (const mode of modes) {
    if (mode !== "reversible" && mode !== "clean") throw new Error(`unknown mode ${mode}`);
  }
  const minBytes =
    values["min-bytes"] === undefined ? 0 : integer(values["min-bytes"], 1, "min-bytes");
  const corpus: BenchBody[] = values.corpus
    ? loadCorpus(resolve(values.corpus))
    : generateCorpus({ sessions: 6, seed: 1 }).map((entry) => ({
        name: entry.name,
        provider: entry.provider,
        session: `g${entry.session}/${entry.provider}`,
        body: entry.body,
      }));
  const bodies = corpus.filter((item) => Buffer.byteLength(item.body) >= minBytes);
  if (bodies.length === 0) throw new Error(`no body of at least ${minBytes} bytes`);
  const bytes = bodies.reduce((total, item) => total + Buffer.byteLength(item.body), 0);
  console.log(
    `corpus: ${values.corpus ?? "generated (sessions 6, seed 1)"}: ${bodies.length} bodies` +
      `${minBytes > 0 ? ` of at least ${minBytes} bytes` : ""}, ${(bytes / 1024).toFixed(0)} KiB`,
  );
  const options: Options = {
    coldPasses: integer(values["cold-passes"], 3, "cold-passes"),
    warmRuns: integer(values["warm-runs"], 5, "warm-runs"),
    floorRuns: integer(values["floor-runs"], 9, "floor-runs"),
  };
  const results: ModeFigures[] = [];
  for (const mode of modes as Mode[]) results.push(await measureMode(bodies, mode, options));
  console.log(render(results));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
