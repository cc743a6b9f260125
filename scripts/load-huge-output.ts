/**
 * The "huge output" scenario of `npm run load -- --huge-output` (§10, big bodies): bodies of
 * 1, 9 and 24 MB, each with one huge output (a make log, a test log, a JSON-lines service log,
 * an API's JSON answer; on request, `--huge-output-kinds`, a file as one line of base64 and a
 * coloured progress log) among twenty ordinary ones, compacted by the built service as its own
 * process, with the heap flag, memory limit and config it ships with: reversible as k8s/base,
 * clean as k8s/overlays/clean. For each body, in one run:
 *
 * - the floor: the same body through a bare HTTP server (its own process, the same heap flag)
 *   that parses the body and answers it serialised again, timed as the service is, from the
 *   last byte of the body sent to the last byte of the answer (the best of three); beside it
 *   the parse and serialisation alone, in this process;
 * - the service's time for the body, new to it, told the cache is cold or told nothing (a body
 *   it has not seen is then decided as a warm turn: the huge output as the newest, unmasked);
 * - the huge output's o200k tokens before and after;
 * - in reversible mode, whether /rehydrate gives back the body byte for byte;
 * - /livez, polled every 50 ms throughout from a thread of its own;
 * - the service's peak resident memory (VmHWM) against the deployment's memory limit.
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { Worker } from "node:worker_threads";
import { parse as parseYaml } from "yaml";
import { HUGE_KINDS, type HugeKind, hugeOutputBody } from "../bench/huge-output-bodies.js";
import { postAfterUpload } from "../bench/post-after-upload.js";
import { freePort, startServerChild } from "../bench/server-child.js";
import { countO200k } from "../src/pipeline/tokens.js";

const root = resolve(import.meta.dirname, "..");
const MIB = 1024 * 1024;
const MB = 1_000_000;

interface Deployment {
  readonly mode: "reversible" | "clean";
  readonly nodeOptions: string;
  readonly memoryLimit: number;
  readonly config: string;
}

interface Container {
  env?: Array<{ name: string; value?: string }>;
  resources?: { limits?: { memory?: string } };
}

function containerOf(file: string): Container | undefined {
  const manifest = parseYaml(readFileSync(resolve(root, file), "utf8")) as {
    spec: { template: { spec: { containers: Container[] } } };
  };
  return manifest.spec.template.spec.containers[0];
}

/** The heap flag, memory limit and config of k8s/base, with an overlay's config (and patch). */
function deployment(mode: Deployment["mode"], configFile: string, patch?: string): Deployment {
  const base = containerOf("k8s/base/deployment.yaml");
  const patched = patch === undefined ? undefined : containerOf(patch);
  const env = (container?: Container) =>
    container?.env?.find((entry) => entry.name === "NODE_OPTIONS")?.value;
  const memory = patched?.resources?.limits?.memory ?? base?.resources?.limits?.memory ?? "";
  return {
    mode,
    nodeOptions: env(patched) ?? env(base) ?? "",
    memoryLimit: Number(/^(\d+)Mi$/.exec(memory)?.[1]) * MIB,
    config: readFileSync(resolve(root, configFile), "utf8"),
  };
}

/** Milliseconds of a bare decode, parse, stringify and encode of `bytes` here: the best of three. */
function parseFloor(bytes: Buffer): number {
  let best = Number.POSITIVE_INFINITY;
  for (let trial = 0; trial < 3; trial++) {
    const started = performance.now();
    Buffer.from(JSON.stringify(JSON.parse(new TextDecoder().decode(bytes))));
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/** A bare HTTP server that answers every body parsed and serialised again. */
const ECHO = `
  const { createServer } = require("node:http");
  createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const text = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      response.writeHead(200, { "content-type": "application/json" }).end(text);
    });
  }).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
`;

async function startEcho(nodeOptions: string): Promise<{ port: number; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["-e", ECHO], {
    env: { ...process.env, PORT: String(port), NODE_OPTIONS: nodeOptions },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await once(child.stdout, "data");
  return { port, stop: () => child.kill("SIGKILL") };
}

interface Answer {
  readonly ms: number;
  readonly status: number;
  readonly body: Buffer;
  /** Why the service answered with the original body, if it did. */
  readonly passthrough: string | undefined;
}

/** POSTs `body`; the milliseconds from its last byte sent to the answer's last byte. */
async function post(
  port: number,
  path: string,
  body: Buffer,
  session: string,
  cache: HugeCache = "cold",
): Promise<Answer> {
  const answer = await postAfterUpload(port, path, body, {
    ...(cache === "cold" ? { "x-context-guru-cache": "cold" } : {}),
    "x-context-guru-session": session,
  });
  const passthrough = answer.headers["x-context-guru-passthrough"];
  return {
    ms: answer.ms,
    status: answer.status,
    body: answer.body,
    passthrough: typeof passthrough === "string" ? passthrough : undefined,
  };
}

/** Polls /livez every 50 ms from a thread of its own until stopped; the slowest answer (ms). */
function pollLivez(port: number): { stop(): Promise<number> } {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    let running = true, slowest = 0;
    parentPort.on("message", () => { running = false; });
    (async () => {
      while (running) {
        const started = performance.now();
        try {
          const response = await fetch(workerData.url, { signal: AbortSignal.timeout(5000) });
          await response.arrayBuffer();
          slowest = Math.max(slowest, response.status === 200 ? performance.now() - started : Infinity);
        } catch { slowest = Infinity; }
        await new Promise((done) => setTimeout(done, 50));
      }
      parentPort.postMessage(slowest);
    })();
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: { url: `http://127.0.0.1:${port}/livez` },
  });
  const slowest = new Promise<number>((done) => worker.once("message", done));
  return {
    stop: async () => {
      worker.postMessage("stop");
      const value = await slowest;
      await worker.terminate();
      return value;
    },
  };
}

const peakResident = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;

/** One body of a case. */
interface Sample {
  readonly bytes: Buffer;
  readonly index: number;
  readonly tokensBefore: number;
  /** Milliseconds: the bare HTTP server's (best of three), and parsing and serialising alone. */
  readonly floor: number;
  readonly parse: number;
}

/**
 * What the service is told of the model server's cache: `cold` (the header), or nothing — a body
 * it has not seen is then decided as on a warm turn (§4a: unknown history is warm), which is how
 * an agent's new huge output arrives mid-session: no output is masked, each new one is decided
 * on first sight.
 */
export type HugeCache = "cold" | "unknown";
export const HUGE_CACHES: readonly HugeCache[] = ["cold", "unknown"];

/** Bodies of one kind and size, each new to the service. */
interface Case {
  readonly kind: HugeKind;
  readonly megabytes: number;
  readonly cache: HugeCache;
  readonly samples: readonly Sample[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function hugeTokensAfter(answer: Buffer, index: number): number {
  const body = JSON.parse(answer.toString("utf8")) as { messages: Array<{ content: unknown }> };
  const content = body.messages[index]?.content;
  return countO200k(typeof content === "string" ? content : JSON.stringify(content));
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

/** Bodies of each kind a service compacts before it is measured. */
const WARM_ROUNDS = 8;

/** Runs every case against one deployment; false when a target was missed. */
async function runDeployment(target: Deployment, cases: readonly Case[]): Promise<boolean> {
  const server = await startServerChild(target.config, { NODE_OPTIONS: target.nodeOptions }, true);
  const pid = server.process.pid as number;
  let ok = true;
  // Polled from before the first body: the poller's thread starting (tens of milliseconds of
  // CPU) is not measured as part of the first row's bodies.
  const livez = pollLivez(server.port);
  let stopped = false;
  try {
    // A service that has run a while: each worker thread has compacted bodies of every kind
    // (none of them the measured ones, so nothing measured is memoised). A fresh service takes
    // 0.6 s over its first 1 MB body and 40-50 ms over the next few, 30 ms once its code is
    // compiled: WARM_ROUNDS bodies of a kind bring it there.
    for (const kind of new Set(cases.map((item) => item.kind))) {
      for (let round = 0; round < WARM_ROUNDS; round++) {
        const warm = hugeOutputBody(kind, MB, 1_000_000 + round);
        await post(server.port, "/compact", Buffer.from(warm.body), `warm-${kind}-${round}`);
      }
    }
    for (const item of cases) {
      const compactMs: number[] = [];
      const kept: number[] = [];
      const exact: string[] = [];
      const missed: string[] = [];
      for (const [number, sample] of item.samples.entries()) {
        const session = `huge-${target.mode}-${item.kind}-${item.megabytes}-${item.cache}-${number}`;
        const compacted = await post(server.port, "/compact", sample.bytes, session, item.cache);
        compactMs.push(compacted.ms);
        if (compacted.status !== 200 || compacted.passthrough !== undefined) {
          missed.push(compacted.passthrough ?? String(compacted.status));
        }
        // Anything but a compacted body (the original, an error) keeps every token.
        const after =
          compacted.status !== 200 || compacted.body.equals(sample.bytes)
            ? sample.tokensBefore
            : hugeTokensAfter(compacted.body, sample.index);
        kept.push((100 * after) / sample.tokensBefore);
        if (target.mode === "reversible") {
          const back = await post(server.port, "/rehydrate", compacted.body, session);
          exact.push(back.status === 200 && back.body.equals(sample.bytes) ? "yes" : "NO");
        }
      }
      const floor = median(item.samples.map((sample) => sample.floor));
      const compact = median(compactMs);
      const ratio = compact / floor;
      const worstKept = Math.max(...kept);
      const allExact = exact.length === 0 ? "n/a" : exact.every((e) => e === "yes") ? "yes" : "NO";
      ok &&= missed.length === 0 && ratio <= 3 && worstKept <= 5 && allExact !== "NO";
      const tokens = median(item.samples.map((sample) => sample.tokensBefore));
      console.log(
        `  ${pad(item.megabytes, 3)} MB ${item.kind.padEnd(5)} ${item.cache.padEnd(7)} ${target.mode.padEnd(10)} ` +
          `${pad(median(item.samples.map((sample) => sample.parse)).toFixed(0), 5)} ${pad(floor.toFixed(0), 6)} ` +
          `${pad(compact.toFixed(0), 7)} ${pad(ratio.toFixed(2), 6)}× ${pad(Math.max(...compactMs).toFixed(0), 7)} ` +
          `${pad(tokens, 9)} ${pad(worstKept.toFixed(2), 6)} % ${allExact.padStart(5)}` +
          (missed.length > 0 ? `  answered with the original: ${missed.join(", ")}` : ""),
      );
    }
    const slowest = await livez.stop();
    stopped = true;
    const peak = peakResident(pid);
    ok &&= slowest <= 1_000 && peak < target.memoryLimit;
    console.log(
      `  ${target.mode}: /livez slowest ${Number.isFinite(slowest) ? `${slowest.toFixed(0)} ms` : "FAILED"} (target ≤ 1000 ms); ` +
        `peak resident ${(peak / MIB).toFixed(0)} MiB of the ${target.memoryLimit / MIB} MiB limit (${((100 * peak) / target.memoryLimit).toFixed(0)} %)`,
    );
  } finally {
    if (!stopped) await livez.stop();
    server.process.kill("SIGKILL");
  }
  return ok;
}

/** Runs the scenario and prints its figures; false when a target was missed. */
export async function hugeOutputScenario(
  sizes: readonly number[] = [1, 9, 24],
  samples = 3,
  caches: readonly HugeCache[] = HUGE_CACHES,
  kinds: readonly HugeKind[] = HUGE_KINDS,
): Promise<boolean> {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  const targets = [
    deployment("reversible", "k8s/base/config.yaml"),
    deployment("clean", "k8s/overlays/clean/config.yaml"),
  ];
  let ok = true;
  let seed = 1;
  console.log(
    `huge output: built service as its own process, shipped heap, limit and config; each row ${samples} bodies new to the service; ms`,
  );
  console.log(
    "  size  kind  cache   mode       parse  floor compact  ratio  slowest  tokens before  kept   exact",
  );
  for (const target of targets) {
    // Bodies of their own for each deployment and cache state: no memo of one serves another.
    const cases: Case[] = [];
    const echo = await startEcho(target.nodeOptions);
    try {
      for (const megabytes of sizes) {
        for (const kind of kinds) {
          for (const cache of caches) {
            const bodies: Sample[] = [];
            for (let number = 0; number < samples; number++) {
              const { body, index, output } = hugeOutputBody(kind, megabytes * MB, seed++);
              const bytes = Buffer.from(body);
              let floor = Number.POSITIVE_INFINITY;
              for (let trial = 0; trial < 3; trial++) {
                floor = Math.min(floor, (await post(echo.port, "/", bytes, "echo")).ms);
              }
              const parse = parseFloor(bytes);
              bodies.push({ bytes, index, tokensBefore: countO200k(output), floor, parse });
            }
            cases.push({ kind, megabytes, cache, samples: bodies });
          }
        }
      }
    } finally {
      echo.stop();
    }
    // Making the bodies left this process hundreds of megabytes of garbage (24 MB strings and
    // their JSON): collected now, not by a collector running beside the service it measures.
    (globalThis as { gc?: () => void }).gc?.();
    ok = (await runDeployment(target, cases)) && ok;
  }
  return ok;
}
