/**
 * Where a body is better compacted on a worker thread than on the event loop
 * (`limits.worker_min_bytes`): for bodies of growing size, the time an inline compaction holds
 * the event loop, and the time the same compaction takes end to end on a warm worker (the body
 * copied there, the store reached over a port, the result copied back). Both are warm (the same
 * body compacted before, as agents re-send their history) and cold (a body never seen).
 *
 *   npm run bench:workers [-- --runs 7]
 */
import { parseArgs } from "node:util";
import { Compactor } from "../src/compact/compactor.js";
import { WorkerPool } from "../src/compaction/worker-pool.js";
import { components } from "../src/components/registry.js";
import { parseConfig } from "../src/config/load.js";
import { createStore } from "../src/store/create.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const runs = Number(values.runs);
const KIB = 1024;
const sizes = [16, 32, 64, 128, 256, 512, 1024, 2048].map((kib) => kib * KIB);

/** An agent body of about `bytes` bytes; `salt` makes every output new (a cold body). */
function body(bytes: number, salt: string): string {
  const messages: string[] = ['{"role":"user","content":"Fix the failing build."}'];
  for (let call = 0, size = 64; size < bytes; call++) {
    const output = Array.from(
      { length: 40 },
      (_, line) =>
        `[${salt}] step ${call}.${line}: compiled src/module-${(call * 40 + line) % 997}.ts`,
    ).join("\n");
    const pair = [
      JSON.stringify({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `c${call}`,
            type: "function",
            function: { name: "Bash", arguments: `{"command":"make ${call}"}` },
          },
        ],
      }),
      JSON.stringify({ role: "tool", tool_call_id: `c${call}`, content: output }),
    ];
    messages.push(...pair);
    size += pair[0]!.length + pair[1]!.length + 2;
  }
  return `{"model":"gpt-4o","messages":[${messages.join(",")}]}`;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const config = parseConfig({ limits: { compact_timeout_ms: 600_000 } });
const store = createStore(config.store);
const compactor = new Compactor({ config, store, registry: components });
const pool = new WorkerPool({ size: 1, setup: { config, hashKey: compactor.hashKey }, store });
await pool.warm();
const signal = new AbortController().signal;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

console.log("body KiB | inline warm | worker warm | inline cold | worker cold (ms, medians)");
let salt = 0;
for (const size of sizes) {
  const warmBody = body(size, "warm");
  const warmBytes = new TextEncoder().encode(warmBody);
  await compactor.compact(warmBody, { session: "w" });
  await pool.compact(warmBytes, { session: "w" }, signal);
  const figures = {
    inlineWarm: [] as number[],
    workerWarm: [] as number[],
    inlineCold: [] as number[],
    workerCold: [] as number[],
  };
  for (let run = 0; run < runs; run++) {
    figures.inlineWarm.push(await timed(() => compactor.compact(warmBody, { session: "w" })));
    figures.workerWarm.push(await timed(() => pool.compact(warmBytes, { session: "w" }, signal)));
    const coldInline = body(size, `cold${salt++}`);
    figures.inlineCold.push(await timed(() => compactor.compact(coldInline, { session: "c" })));
    const coldWorker = new TextEncoder().encode(body(size, `cold${salt++}`));
    figures.workerCold.push(await timed(() => pool.compact(coldWorker, { session: "c" }, signal)));
  }
  console.log(
    [
      size / KIB,
      median(figures.inlineWarm),
      median(figures.workerWarm),
      median(figures.inlineCold),
      median(figures.workerCold),
    ]
      .map((value, index) =>
        (index === 0 ? String(value) : value.toFixed(2)).padStart(index === 0 ? 8 : 11),
      )
      .join(" | "),
  );
}
await pool.close();
process.exit(0);
