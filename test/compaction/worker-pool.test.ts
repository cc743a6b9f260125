import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { largeLogBody, tinyMessagesBody } from "../../bench/large-bodies.js";
import { WORKER_NICE } from "../../src/compaction/thread-priority.js";
import { JobAbandonedError, WorkerPool } from "../../src/compaction/worker-pool.js";
import { Compactor } from "../../src/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import { StoreCapacityError } from "../../src/errors/store-error.js";
import { markerIds, SENTINEL } from "../../src/expand/markers.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";
import { recordingStore } from "../support/recording-store.js";

/**
 * Worker threads that compact (§10): the same Compactor as the event loop, over the event-loop
 * thread's store; a job given up is answered at once and its worker replaced; a worker that
 * runs out of memory takes only its own job with it.
 */
const config = parseConfig({});
const pools: WorkerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

function poolOver(
  store: Store,
  options: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {},
) {
  const pool = new WorkerPool({
    size: 1,
    setup: { config, hashKey: TEST_HASH_KEY },
    store,
    ...options,
  });
  pools.push(pool);
  return pool;
}

const never = () => new AbortController().signal;
const outputs = [
  logOutput(200, "a"),
  logOutput(200, "b"),
  logOutput(200, "c"),
  logOutput(200, "d"),
];
const body = openaiBody([...outputs, "done"]);

describe("WorkerPool", { timeout: 60_000 }, () => {
  it("gives the bytes the event-loop compactor gives, and stashes in the event-loop store", async () => {
    const store = createStore(config.store);
    // One deployment's key; decided whole (§4a), so the older outputs are masked and stashed.
    const inline = await new Compactor({
      config,
      store: createStore(config.store),
      registry: components,
      hashKey: TEST_HASH_KEY,
    }).compact(body, { session: "s1", cache: "cold" });

    const outcome = await poolOver(store).compact(body, { session: "s1", cache: "cold" }, never());

    expect(outcome.kind).toBe("compacted");
    if (outcome.kind !== "compacted") return;
    expect(outcome.result.text).toBe(inline.text);
    expect(outcome.result.markers).toBeGreaterThan(0);
    const [id] = markerIds(outcome.result.text);
    expect(await store.get("s1", id as string)).toBe(outputs[0]);
  });

  it("answers a compaction once the event-loop store acknowledges its write, while its worker is still finishing", async () => {
    const store = createStore(config.store);
    const pool = poolOver(store);

    const outcome = await pool.compact(body, { session: "s1", cache: "cold" }, never());

    // The answer came ahead of the write; the worker has not yet reported its job done.
    expect(pool.busy).toBe(1);
    expect(outcome.kind).toBe("compacted");
    if (outcome.kind !== "compacted") return;
    const [id] = markerIds(outcome.result.text);
    expect(await store.get("s1", id as string)).toBe(outputs[0]);
    // The worker then takes the next job.
    const next = await pool.compact(body, { session: "s2", cache: "cold" }, never());
    expect(next.kind).toBe("compacted");
  });

  it("answers with the worker's one-way answer, not the one sent ahead, when the store refuses the write", async () => {
    const memory = createStore(config.store);
    const refusing = new Proxy(memory, {
      get(target, name) {
        if (name === "put") {
          return async () => {
            throw new StoreCapacityError("the put alone is past the session's share");
          };
        }
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const outcome = await poolOver(refusing).compact(
      body,
      { session: "s1", cache: "cold" },
      never(),
    );

    expect(outcome.kind).toBe("compacted");
    if (outcome.kind !== "compacted") return;
    expect(markerIds(outcome.result.text)).toEqual([]);
    expect(outcome.result.markerIds).toEqual([]);
    expect(outcome.result.text).toContain(SENTINEL);
    expect(outcome.result.report?.stashFailure).toContain("past the session's share");
  });

  it("answers a job given up mid-run at once, lets it reach the store no more, and replaces its worker", async () => {
    const { store, calls } = recordingStore(createStore(config.store));
    const pool = poolOver(store);
    pool.warm();
    // Several seconds of tokenising for a worker.
    const large = largeLogBody(12 * 1024 * 1024);
    const abort = new AbortController();
    const running = pool.compact(large, {}, abort.signal);
    await new Promise((done) => setTimeout(done, 300));
    abort.abort();
    const given = performance.now();

    await expect(running).rejects.toBeInstanceOf(JobAbandonedError);
    const next = await pool.compact(body, { session: "s2" }, never());

    expect(next).toMatchObject({ kind: "compacted", result: { session: "s2" } });
    await new Promise((done) => setTimeout(done, 500));
    // From the moment it was given up, every call the store got was the next job's: its
    // session's, and the deployment's learned lifetime read with its ledger.
    const later = calls.filter(({ at }) => at > given);
    expect(later.length).toBeGreaterThan(0);
    expect(
      later.every(
        ({ method, args }) => args[0] === (method === "sharedNumber" ? "lifetime" : "s2"),
      ),
    ).toBe(true);
    expect(later.filter(({ method }) => method === "sharedNumber")).toHaveLength(1);
  });

  it("refuses, before parsing it, a body whose heap would not fit the worker's; the next job runs", async () => {
    // Without this check the parse would exhaust the worker's heap, and V8 would end the process.
    const small = parseConfig({ limits: { memo_bytes: 8 * 1024 * 1024 } });
    const pool = new WorkerPool({
      size: 1,
      setup: { config: small, hashKey: TEST_HASH_KEY },
      store: createStore(small.store),
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    });
    pools.push(pool);
    const huge = tinyMessagesBody(24 * 1024 * 1024);

    const refused = await pool.compact(huge, {}, never());
    const rehydration = await pool.rehydrate(huge, {}, never());

    expect(refused).toMatchObject({ kind: "too_costly" });
    expect(rehydration).toMatchObject({ kind: "too_costly" });
    if (refused.kind === "too_costly") expect(refused.estimate).toBeGreaterThan(refused.budget);
    expect(await pool.compact(body, { session: "s3" }, never())).toMatchObject({
      kind: "compacted",
    });
  });

  it("keeps one of two workers from large bodies: a medium body never waits behind two of them", async () => {
    const pool = poolOver(createStore(config.store), { size: 2 });
    await pool.warm();
    const finished: string[] = [];
    const run = (name: string, text: string) =>
      pool.compact(text, {}, never()).then(() => finished.push(name));

    const jobs = [
      run("large 1", largeLogBody(8 * 1024 * 1024)),
      run("large 2", largeLogBody(8 * 1024 * 1024).replace("gpt-4o", "gpt-4")),
      run("medium", largeLogBody(200 * 1024)),
    ];
    await Promise.all(jobs);

    expect(finished[0]).toBe("medium");
    expect(pool.threads).toBe(2);
  });

  it.skipIf(process.platform !== "linux")(
    "runs its workers at a lower priority than the event loop",
    async () => {
      const pool = poolOver(createStore(config.store), { size: 2 });
      await pool.warm();
      const nice = (task: string) =>
        Number(
          readFileSync(`/proc/${process.pid}/task/${task}/stat`, "utf8")
            .split(") ")[1]
            ?.split(" ")[16],
        );
      const tasks = readdirSync(`/proc/${process.pid}/task`);
      expect(nice(String(process.pid))).toBe(0);
      expect(tasks.filter((task) => nice(task) === WORKER_NICE)).toHaveLength(2);
    },
  );

  it("runs queued jobs in order of arrival, one per worker at a time", async () => {
    const pool = poolOver(createStore(config.store));
    const results = await Promise.all(
      ["q1", "q2", "q3"].map((session) => pool.compact(body, { session }, never())),
    );
    expect(
      results.map((outcome) => outcome.kind === "compacted" && outcome.result.session),
    ).toEqual(["q1", "q2", "q3"]);
    expect(pool.threads).toBe(1);
  });
});
