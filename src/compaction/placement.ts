/**
 * Which waiting job starts next, and on which worker (src/compaction/worker-pool.ts). A worker
 * thread keeps what it learned of a session in memory (a prefix memo: a miss recomputes exactly,
 * so it only saves work), so a session's jobs go to its *home*, the worker that started its last
 * job, where that costs no one anything:
 *
 * - Jobs are served in order of arrival, one per worker, and the reserve worker never takes a
 *   large body.
 * - A job whose home is free takes it. Its home busy with another session's job, it takes any
 *   free worker (and leaves, where it can, a worker that is the free home of a job behind it).
 * - The one preference that waits: a job whose home is running a job of *its own session* — a
 *   medium one, under WAIT_BEHIND_BYTES, so tens of milliseconds — waits for it even while
 *   another worker is free: run side by side, the two would both compute what the first is
 *   computing. Only the session's earliest waiting job waits so; the others take any free
 *   worker, so a session's burst still spreads over the pool. Should the home stop (given up at
 *   its deadline, or out of memory), the job is placed as any other.
 */

/** A job waits for its home only behind a job of its own session smaller than this. */
export const WAIT_BEHIND_BYTES = 1024 * 1024;

/** A worker as placement reads it. */
export interface PlacementWorker {
  readonly id: number;
  /** Loaded, so it may take jobs. */
  readonly ready: boolean;
  /** Never runs a large body. */
  readonly reserve: boolean;
  /** The job it runs now, if any. */
  readonly running: { readonly session: string | undefined; readonly bytes: number } | undefined;
}

/** A waiting job as placement reads it. */
export interface PlacementJob {
  readonly session: string | undefined;
  readonly large: boolean;
}

/** The job (index in the queue) that starts now and its worker, or how many wait for a home. */
export type Placement =
  | { readonly job: number; readonly worker: PlacementWorker }
  | { readonly job: undefined; readonly waitingForHome: number };

/** `homeOf(session)`: the id of the worker that started the session's last job, if known. */
export function placeNext(
  queue: readonly PlacementJob[],
  workers: readonly PlacementWorker[],
  homeOf: (session: string) => number | undefined,
): Placement {
  const byId = new Map(workers.map((worker) => [worker.id, worker]));
  const home = (job: PlacementJob) =>
    job.session === undefined ? undefined : byId.get(homeOf(job.session) ?? -1);
  const waiting = new Set<string>();
  let waitingForHome = 0;
  for (const [index, job] of queue.entries()) {
    const own = home(job);
    if (own && free(own, job)) return { job: index, worker: own };
    if (own && job.session !== undefined && !waiting.has(job.session) && waitsFor(own, job)) {
      waiting.add(job.session);
      waitingForHome++;
      continue;
    }
    const candidates = workers.filter((worker) => free(worker, job));
    if (candidates.length === 0) continue;
    const wanted = new Set(queue.slice(index + 1).map((later) => home(later)?.id));
    const worker = candidates.find((candidate) => !wanted.has(candidate.id)) ?? candidates[0];
    return { job: index, worker: worker as PlacementWorker };
  }
  return { job: undefined, waitingForHome };
}

/** Whether `worker` may take `job` now. */
function free(worker: PlacementWorker, job: PlacementJob): boolean {
  return worker.ready && worker.running === undefined && (!job.large || !worker.reserve);
}

/** Whether `job` waits for its busy home: behind a medium job of its own session it may run. */
function waitsFor(home: PlacementWorker, job: PlacementJob): boolean {
  const { running } = home;
  return (
    running !== undefined &&
    running.session === job.session &&
    running.bytes < WAIT_BEHIND_BYTES &&
    (!job.large || !home.reserve)
  );
}
