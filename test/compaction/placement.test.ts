import { describe, expect, it } from "vitest";
import {
  type PlacementJob,
  type PlacementWorker,
  placeNext,
  WAIT_BEHIND_BYTES,
} from "../../src/compaction/placement.js";

/**
 * Which waiting job starts on which worker: a session's home (the worker that started its last
 * job) when free, never at the cost of order of arrival, the reserve worker or a free worker
 * left idle — save the one short wait behind a medium job of the job's own session. Each case
 * is one state of the pool, given by hand: no threads, no timers.
 */
const free = (id: number, reserve = false): PlacementWorker => ({
  id,
  ready: true,
  reserve,
  running: undefined,
});
const busy = (id: number, session: string | undefined, bytes = 1000): PlacementWorker => ({
  id,
  ready: true,
  reserve: false,
  running: { session, bytes },
});
const booting = (id: number): PlacementWorker => ({ ...free(id), ready: false });
const job = (session: string | undefined, large = false): PlacementJob => ({ session, large });
/** Homes by session, as the pool remembers them. */
const homes = (entries: Record<string, number>) => (session: string) => entries[session];

interface Case {
  readonly name: string;
  readonly queue: PlacementJob[];
  readonly workers: PlacementWorker[];
  readonly homes: Record<string, number>;
  /** [job index, worker id] that starts, or the number of jobs waiting for their home. */
  readonly expected: [number, number] | { waitingForHome: number };
}

const cases: Case[] = [
  {
    name: "a job takes its free home over a free worker before it",
    queue: [job("s")],
    workers: [free(0), free(1)],
    homes: { s: 1 },
    expected: [0, 1],
  },
  {
    name: "a job without a home takes the first free worker",
    queue: [job(undefined)],
    workers: [busy(0, "t"), free(1), free(2)],
    homes: {},
    expected: [0, 1],
  },
  {
    name: "a job whose home runs another session's job takes a free worker",
    queue: [job("s")],
    workers: [busy(0, "t"), free(1)],
    homes: { s: 0 },
    expected: [0, 1],
  },
  {
    name: "a job whose home runs a medium job of its own session waits for it",
    queue: [job("s")],
    workers: [busy(0, "s"), free(1)],
    homes: { s: 0 },
    expected: { waitingForHome: 1 },
  },
  {
    name: "but not behind a large one: it takes a free worker",
    queue: [job("s")],
    workers: [busy(0, "s", WAIT_BEHIND_BYTES), free(1)],
    homes: { s: 0 },
    expected: [0, 1],
  },
  {
    name: "only the session's earliest job waits; the next takes a free worker",
    queue: [job("s"), job("s")],
    workers: [busy(0, "s"), free(1)],
    homes: { s: 0 },
    expected: [1, 1],
  },
  {
    name: "a waiting job lets a later job of another session start",
    queue: [job("s"), job("t")],
    workers: [busy(0, "s"), free(1)],
    homes: { s: 0, t: 0 },
    expected: [1, 1],
  },
  {
    name: "in order of arrival: a job leaves a later job's free home to it when it can",
    queue: [job("s"), job("t")],
    workers: [free(0), free(1)],
    homes: { t: 0 },
    expected: [0, 1],
  },
  {
    name: "in order of arrival: but takes it when it is the only free worker",
    queue: [job("s"), job("t")],
    workers: [free(0), busy(1, "u")],
    homes: { t: 0 },
    expected: [0, 0],
  },
  {
    name: "a large job never goes to the reserve worker, even its home",
    queue: [job("s", true)],
    workers: [free(0, true), free(1)],
    homes: { s: 0 },
    expected: [0, 1],
  },
  {
    name: "a large job does not wait for a reserve home it may not run on",
    queue: [job("s", true)],
    workers: [{ ...busy(0, "s"), reserve: true }, free(1)],
    homes: { s: 0 },
    expected: [0, 1],
  },
  {
    name: "a home still booting is no home: any free worker",
    queue: [job("s")],
    workers: [booting(0), free(1)],
    homes: { s: 0 },
    expected: [0, 1],
  },
  {
    name: "a home that stopped is no home: any free worker",
    queue: [job("s")],
    workers: [free(1)],
    homes: { s: 0 },
    expected: [0, 1],
  },
  {
    name: "nothing free: nothing starts, and no job waits for a home",
    queue: [job("s"), job(undefined)],
    workers: [busy(0, "t"), booting(1)],
    homes: { s: 0 },
    expected: { waitingForHome: 0 },
  },
];

describe("placeNext", () => {
  it.each(cases)("$name", ({ queue, workers, homes: entries, expected }) => {
    const placed = placeNext(queue, workers, homes(entries));
    const result =
      placed.job === undefined
        ? { waitingForHome: placed.waitingForHome }
        : [placed.job, placed.worker.id];
    expect(result).toEqual(expected);
  });

  it("never leaves a job waiting while a worker it may run on is free, but the one behind its own session", () => {
    // Every state of a pool of three workers and a queue of three jobs over two sessions.
    const sessions = [undefined, "s", "t"] as const;
    const states = (id: number): PlacementWorker[] => [
      free(id),
      free(id, true),
      booting(id),
      ...sessions.map((session) => busy(id, session)),
    ];
    const violations: string[] = [];
    for (const a of states(0))
      for (const b of states(1))
        for (const c of states(2))
          for (const first of sessions)
            for (const second of sessions)
              for (const large of [false, true]) {
                const workers = [a, b, c];
                const queue = [job(first, large), job(second)];
                const placed = placeNext(queue, workers, homes({ s: 0, t: 1 }));
                if (placed.job !== undefined) continue;
                // Nothing started: each job that may run on a free worker must be waiting behind
                // its own session on its home, and only one a session.
                const runnable = queue.filter((waiting) =>
                  workers.some(
                    (worker) =>
                      worker.ready && !worker.running && (!waiting.large || !worker.reserve),
                  ),
                );
                const behindOwn = runnable.filter(
                  ({ session }) =>
                    session !== undefined &&
                    workers[session === "s" ? 0 : 1]?.running?.session === session,
                );
                const once =
                  new Set(runnable.map(({ session }) => session)).size === runnable.length;
                if (behindOwn.length < runnable.length || !once) {
                  violations.push(JSON.stringify({ workers, queue }));
                }
              }
    expect(violations).toEqual([]);
  });
});
