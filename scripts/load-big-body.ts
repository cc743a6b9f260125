/**
 * The "big body" scenario of `npm run load -- --big-body` (§10: one request never stalls the
 * others). The service runs as its own process (`src/server.ts`) with the heap flag and config
 * of k8s/base; this process drives it:
 *
 * - small corpus requests with autocannon (in a worker thread), alone and while bodies of
 *   4, 16 and 32 MiB are compacted one after another beside them (each body new, so nothing is
 *   memoised);
 * - `/livez` every 50 ms throughout;
 * - the answer time of a 32 MiB body against a second process with `compact_timeout_ms: 500`;
 * - eight worst-case bodies at once (32 MiB of one-word messages to /compact, 12 MiB to
 *   /rehydrate) against the shipped heap: is the process alive afterwards;
 * - the service's peak resident memory (VmHWM) against the container limit of k8s/base.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { Worker } from "node:worker_threads";
import { parse as parseYaml } from "yaml";
import { largeLogBody, tinyMessagesBody } from "../bench/large-bodies.js";
import { postAfterUpload } from "../bench/post-after-upload.js";
import { type ServerChild, startServerChild } from "../bench/server-child.js";

interface LoadRequest {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface AutocannonResult {
  latency: { p50: number; p99: number };
  requests: { total: number };
  errors: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

const root = resolve(import.meta.dirname, "..");
const MIB = 1024 * 1024;

export interface BigBodyOptions {
  readonly requests: readonly LoadRequest[];
  readonly connections: number;
  /** Seconds of each phase. */
  readonly seconds: number;
  /** Small requests per second, all connections together: a steady load, not a saturating one. */
  readonly rate: number;
}

/** Compiles the service to dist/ (`npm run build`): the scenario runs what the image runs. */
function build(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
}

/** The heap flag and memory limit k8s/base ships. */
function shipped(): { nodeOptions: string; memoryLimit: number; config: string } {
  const deployment = parseYaml(readFileSync(resolve(root, "k8s/base/deployment.yaml"), "utf8")) as {
    spec: {
      template: {
        spec: {
          containers: Array<{
            env: Array<{ name: string; value?: string }>;
            resources: { limits: { memory: string } };
          }>;
        };
      };
    };
  };
  const container = deployment.spec.template.spec.containers[0];
  const nodeOptions = container?.env.find((entry) => entry.name === "NODE_OPTIONS")?.value ?? "";
  const memoryLimit = Number(/^(\d+)Mi$/.exec(container?.resources.limits.memory ?? "")?.[1]) * MIB;
  return {
    nodeOptions,
    memoryLimit,
    config: readFileSync(resolve(root, "k8s/base/config.yaml"), "utf8"),
  };
}

const peakResident = (server: ServerChild) =>
  Number(
    /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.process.pid}/status`, "utf8"))?.[1],
  ) * 1024;

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Polls /livez every 50 ms until stopped; the latencies of the answers, failures as Infinity. */
function pollLivez(base: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${base}/livez`, { signal: AbortSignal.timeout(5_000) });
        await response.arrayBuffer();
        latencies.push(response.status === 200 ? performance.now() - started : Infinity);
      } catch {
        latencies.push(Infinity);
      }
      await new Promise((done) => setTimeout(done, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/**
 * Posts the given bodies to /compact one after another until stopped, from a worker thread (the
 * uploads and downloads of 32 MiB would otherwise hold this thread's /livez poller); the answer
 * times.
 */
function compactLoop(base: string, bodies: readonly Buffer[]): { stop(): Promise<number[]> } {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    let running = true;
    parentPort.on("message", () => { running = false; });
    (async () => {
      const times = [];
      for (let index = 0; running; index++) {
        const started = performance.now();
        const response = await fetch(workerData.url, {
          method: "POST",
          body: workerData.bodies[index % workerData.bodies.length],
          // Decided whole (a cold cache): the most work a body can ask for.
          headers: { "content-type": "application/json", "x-context-guru-cache": "cold" },
        });
        await response.arrayBuffer();
        times.push(performance.now() - started);
      }
      parentPort.postMessage(times);
    })();
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: { url: `${base}/compact`, bodies: bodies.map((body) => new Uint8Array(body)) },
  });
  const times = new Promise<number[]>((done) => worker.once("message", done));
  return {
    stop: async () => {
      worker.postMessage("stop");
      const answered = await times;
      await worker.terminate();
      return answered;
    },
  };
}

function small(base: string, options: BigBodyOptions): Promise<AutocannonResult> {
  return autocannon({
    url: base,
    connections: options.connections,
    duration: options.seconds,
    requests: options.requests,
    overallRate: options.rate,
    workers: 1,
  });
}

/**
 * Milliseconds from the last byte of `body` sent to the answer's headers: the server's own time
 * for the request, without the upload before it or the download after it.
 */
async function answerAfterUpload(port: number, body: Buffer): Promise<number> {
  const answer = await postAfterUpload(port, "/compact", body, { "x-context-guru-cache": "cold" });
  return answer.headersMs;
}

async function statusOf(response: Response): Promise<number> {
  await response.arrayBuffer();
  return response.status;
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "failed");

/** Runs the scenario and prints its figures; false when a target was missed or a request failed. */
export async function bigBodyScenario(options: BigBodyOptions): Promise<boolean> {
  const { nodeOptions, memoryLimit, config } = shipped();
  console.log(
    `big body: the built service as its own process, ${nodeOptions}, k8s/base config, memory limit ${memoryLimit / MIB} MiB; small requests at ${options.rate}/s over ${options.connections} connections, ${options.seconds} s per phase`,
  );
  build();
  const server = await startServerChild(config, { NODE_OPTIONS: nodeOptions }, true);
  const base = `http://127.0.0.1:${server.port}`;
  let ok = true;
  try {
    // Each body twice: larger ones go to either worker thread, and each has memos of its own.
    for (const request of [...options.requests, ...options.requests]) {
      await (await fetch(`${base}${request.path}`, { ...request })).arrayBuffer();
    }
    const phases: Array<{ name: string; mib: number }> = [
      { name: "alone", mib: 0 },
      { name: "with 4 MiB", mib: 4 },
      { name: "with 16 MiB", mib: 16 },
      { name: "with 32 MiB", mib: 32 },
    ];
    let aloneP99 = 0;
    const livezAll: number[] = [];
    for (const { name, mib } of phases) {
      // New bodies, made before the phase so that making them does not slow this process.
      const bodies = Array.from({ length: mib === 0 ? 0 : 6 }, (_, index) =>
        Buffer.from(
          largeLogBody(mib * MIB - 64 * 1024).replace('"gpt-4o"', `"gpt-${name}-${index}"`),
        ),
      );
      const livez = pollLivez(base);
      const loop = bodies.length > 0 ? compactLoop(base, bodies) : undefined;
      const result = await small(base, options);
      const bigTimes = (await loop?.stop()) ?? [];
      const livezTimes = await livez.stop();
      livezAll.push(...livezTimes);
      if (mib === 0) aloneP99 = result.latency.p99;
      const failed = result.errors + result.non2xx;
      ok &&= failed === 0;
      const ratio = mib === 0 ? "" : ` (${(result.latency.p99 / aloneP99).toFixed(2)}× alone)`;
      console.log(
        `  ${name.padEnd(11)} small p50 ${result.latency.p50} ms p99 ${result.latency.p99} ms${ratio}, ${result.requests.total} requests, ${failed} failed; ` +
          `/livez p50 ${ms(percentile(livezTimes, 50))} p99 ${ms(percentile(livezTimes, 99))} max ${ms(Math.max(...livezTimes))}` +
          (bigTimes.length > 0
            ? `; ${bigTimes.length} big bodies answered, ${ms(bigTimes.reduce((a, b) => a + b, 0) / bigTimes.length)} each`
            : ""),
      );
    }
    const livezP99 = percentile(livezAll, 99);
    console.log(`  /livez p99 over every phase ${ms(livezP99)} (target ≤ 50 ms)`);
    ok &&= livezP99 <= 50;

    const worst = tinyMessagesBody(32 * MIB);
    const worstRehydrate = tinyMessagesBody(12 * MIB);
    const statuses = await Promise.all([
      ...Array.from({ length: 8 }, (_, index) =>
        fetch(`${base}/compact`, {
          method: "POST",
          body: worst.replace('"model":"m"', `"model":"w${index}"`),
        }).then(statusOf),
      ),
      ...Array.from({ length: 8 }, () =>
        fetch(`${base}/rehydrate`, { method: "POST", body: worstRehydrate }).then(statusOf),
      ),
    ]).catch(() => [0]);
    const alive = server.process.exitCode === null && (await fetch(`${base}/livez`)).status === 200;
    console.log(
      `  8 worst-case bodies on /compact and 8 on /rehydrate at once: answered ${statuses.join(",")}; process ${alive ? "alive" : "DEAD"}`,
    );
    ok &&= alive;
    const peak = peakResident(server);
    console.log(
      `  peak resident memory ${(peak / MIB).toFixed(0)} MiB of the ${memoryLimit / MIB} MiB limit (${((100 * peak) / memoryLimit).toFixed(0)} %)`,
    );
    ok &&= peak < memoryLimit;
  } finally {
    server.process.kill("SIGKILL");
  }

  const timed = await startServerChild(
    `${config}\nlimits:\n  compact_timeout_ms: 500\n`,
    { NODE_OPTIONS: nodeOptions },
    true,
  );
  try {
    // The first body after start waits for no worker: they are loaded at start.
    await new Promise((done) => setTimeout(done, 2_000));
    const answers: number[] = [];
    for (let trial = 0; trial < 3; trial++) {
      const body = Buffer.from(
        largeLogBody(32 * MIB - 64 * 1024).replace('"gpt-4o"', `"gpt-d${trial}"`),
      );
      answers.push(await answerAfterUpload(timed.port, body));
    }
    const worstAnswer = Math.max(...answers);
    console.log(
      `  32 MiB body with compact_timeout_ms 500: answer headers ${answers.map((value) => ms(value)).join(", ")} after the body was sent (deadline + ${ms(worstAnswer - 500)} at worst; target + 100 ms)`,
    );
    ok &&= worstAnswer <= 600;
  } finally {
    timed.process.kill("SIGKILL");
  }
  return ok;
}
