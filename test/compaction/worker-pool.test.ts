import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { largeLogBody, tinyMessagesBody } from "../../bench/large-bodies.js";
import { Compactor } from "../../src/compact/compactor.js";
import { WORKER_NICE } from "../../src/compaction/thread-priority.js";
import { JobAbandonedError, type JobStart, WorkerPool } from "../../src/compaction/worker-pool.js";
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

/**
 * The store as the workers reach it, except that a session's ledger read waits while the test
 * holds that session: its job then stays running on its worker until released, so the pool's
 * choices are seen in order, with no timer.
 */
function holdingStore(store: Store) {
  const holds = new Map<string, { gate: Promise<void>; open: () => void }>();
  const held = new Proxy(store, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name !== "ledger") return typeof value === "function" ? value.bind(target) : value;
      return async (session: string) => {
        await holds.get(session)?.gate;
        return target.ledger(session);
      };
    },
  });
  return {
    store: held,
    /** Holds `session`'s next ledger reads; the function returned lets them go. */
    hold(session: string): () => void {
      let open = () => {};
      const gate = new Promise<void>((done) => {
        open = done;
      });
      holds.set(session, { gate, open });
      return () => {
        holds.delete(session);
        open();
      };
    },
  };
}

describe("WorkerPool: a session's jobs on its home worker", { timeout: 60_000 }, () => {
  /** A warm pool of two over a holding store, recording each job as a worker starts it. */
  async function sessionPool() {
    const holding = holdingStore(createStore(config.store));
    const starts: JobStart[] = [];
    const pool = poolOver(holding.store, { size: 2, onStart: (start) => starts.push(start) });
    await pool.warm();
    const run = (session: string) =>
      pool.compact(body, { session, cache: "cold" }, never(), session);
    return { pool, hold: holding.hold, starts, run };
  }
  const threadOf = (starts: readonly JobStart[], session: string, nth = 0) =>
    starts.filter((start) => start.session === session)[nth]?.threadId;

  it("sends each session's next job to the worker that ran its last one", async () => {
    const { hold, starts, run } = await sessionPool();
    // Both sessions at once: one worker each.
    const release = hold("a");
    const first = run("a");
    await run("b");
    release();
    await first;
    // Then one at a time: each to its own worker, though both are free.
    await run("b");
    await run("a");

    const a = threadOf(starts, "a");
    const b = threadOf(starts, "b");
    expect(a).not.toBe(b);
    expect(starts.map(({ session, threadId, home }) => [session, threadId, home])).toEqual([
      ["a", a, false],
      ["b", b, false],
      ["b", b, true],
      ["a", a, true],
    ]);
  });

  it("a job waits for its home while that runs its session's job, and another session takes the free worker", async () => {
    const { pool, hold, starts, run } = await sessionPool();
    const release = hold("a");
    const first = run("a");
    const second = run("a");
    // Placed as it arrived: the second waits behind the first though a worker is free.
    const waiting = [pool.busy, starts.length];
    const other = run("b");
    const sharing = [pool.busy, starts.length];
    await other;
    release();
    await Promise.all([first, second]);

    expect({ waiting, sharing }).toEqual({ waiting: [1, 1], sharing: [2, 2] });
    expect(starts.map(({ session, home }) => [session, home])).toEqual([
      ["a", false],
      ["b", false],
      ["a", true],
    ]);
    expect(threadOf(starts, "a", 1)).toBe(threadOf(starts, "a"));
    expect(threadOf(starts, "b")).not.toBe(threadOf(starts, "a"));
  });

  it("a job whose home runs another session's job takes the free worker at once", async () => {
    const { pool, hold, starts, run } = await sessionPool();
    await run("a");
    // Its worker done with it (the answer came ahead of the end of the job).
    await vi.waitFor(() => expect(pool.busy).toBe(0));
    const release = hold("b");
    // The first free worker is a's home: b takes it and holds it.
    const other = run("b");
    const moved = run("a");
    const busy = pool.busy;
    await moved;
    release();
    await other;

    expect(busy).toBe(2);
    expect(threadOf(starts, "b")).toBe(threadOf(starts, "a"));
    expect(starts.map(({ session, home }) => [session, home])).toEqual([
      ["a", false],
      ["b", false],
      ["a", false],
    ]);
    expect(threadOf(starts, "a", 1)).not.toBe(threadOf(starts, "a"));
  });
});
