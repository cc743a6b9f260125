import {
  MessageChannel,
  type MessagePort,
  type ResourceLimits,
  type Worker,
} from "node:worker_threads";
import { LRUCache } from "lru-cache";
import type { CompactResult } from "../compact/compactor.js";
import type { Store } from "../store/types.js";
import type {
  AnswerAhead,
  CompactOutcome,
  JobCompactOptions,
  JobDone,
  JobInput,
  JobOutcome,
  RehydrateOptions,
  RehydrateOutcome,
  WorkerSetup,
} from "./job.js";
import { type PlacementWorker, placeNext } from "./placement.js";
import { startWorker } from "./start-worker.js";
import { serveStore, storeSnapshot } from "./store-rpc.js";

/** The job was given up (its deadline passed, or its client left) before it finished. */
export class JobAbandonedError extends Error {
  override readonly name = "JobAbandonedError";
  constructor() {
    super("the job was abandoned before it finished");
  }
}

/** The worker running the job stopped (out of memory, or an error it could not handle). */
export class WorkerExitedError extends Error {
  override readonly name = "WorkerExitedError";
  constructor(
    readonly exitCode: number,
    options?: ErrorOptions,
  ) {
    super(`the compaction worker stopped (exit code ${exitCode})`, options);
  }
}

export interface WorkerPoolOptions {
  /** Worker threads at most; each runs one job at a time. */
  readonly size: number;
  readonly setup: Omit<WorkerSetup, "store">;
  /** The process's one store; every worker's store calls are answered from it. */
  readonly store: Store;
  /** Heap bounds of each worker (see startWorker: the process's heap flag wins). */
  readonly resourceLimits?: ResourceLimits;
  /** Each job as a worker starts it. */
  readonly onStart?: ((start: JobStart) => void) | undefined;
}

/** A job given to a worker thread. */
export interface JobStart {
  readonly session: string | undefined;
  readonly threadId: number;
  /** It went to its session's home: the worker that started the session's previous job. */
  readonly home: boolean;
}

type Request =
  | { readonly kind: "compact"; readonly input: JobInput; readonly options: JobCompactOptions }
  | { readonly kind: "rehydrate"; readonly input: JobInput; readonly options: RehydrateOptions };

/** Bodies from this size on are large: the reserve worker never runs them (see #spawn). */
export const LARGE_JOB_BYTES = 1024 * 1024;

/** Sessions whose home worker is remembered, the least recently started forgotten first. */
export const MAX_HOMES = 4096;

interface Job {
  readonly request: Request;
  /** The session it belongs to, if known (src/compaction/job-session.ts). */
  readonly session: string | undefined;
  readonly bytes: number;
  readonly large: boolean;
  readonly signal: AbortSignal;
  resolve(outcome: JobOutcome): void;
  reject(error: Error): void;
}

interface Slot {
  /** Names the worker in the session → home map; never reused. */
  readonly id: number;
  readonly worker: Worker;
  /** Runs medium bodies only (see #spawn). */
  readonly reserve: boolean;
  /** The worker has loaded its modules; jobs go only to ready workers. */
  ready: boolean;
  /** Settles when the worker is ready or has stopped. */
  readonly loaded: Promise<void>;
  running: { readonly job: Job; readonly port: MessagePort; refuse(): void } | undefined;
}

/**
 * Compaction off the event loop (§10): a pool of worker threads, started as jobs need them (or
 * all at once by `warm`), one job per thread at a time, the rest in order of arrival; a session's
 * jobs go to the worker that started its last one where that costs no one anything (placement.ts;
 * the last MAX_HOMES sessions are remembered). A job waits in the queue until a worker has
 * loaded, so a job given up while workers boot costs no worker.
 * A job given up by its signal is dropped from the queue, or its worker is terminated (whatever
 * it is doing) and its store calls refused from then on; a worker that stops (out of memory)
 * fails only its own job. Either way a fresh worker takes its place.
 */
export class WorkerPool {
  readonly #options: WorkerPoolOptions;
  readonly #setup: WorkerSetup;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  /** Each session's home: the id of the worker that started its last job. */
  readonly #homes = new LRUCache<string, number>({ max: MAX_HOMES });
  #nextId = 0;
  #closed = false;
  /** Keep every worker running (after `warm`): a stopped one is replaced at once. */
  #warm = false;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
    this.#setup = { ...options.setup, store: storeSnapshot(options.store) };
  }

  get size(): number {
    return this.#options.size;
  }

  /** Worker threads running now (busy or idle). */
  get threads(): number {
    return this.#slots.length;
  }

  /** Worker threads running a job now (one answered ahead of its end included). */
  get busy(): number {
    return this.#slots.filter((slot) => slot.running !== undefined).length;
  }

  /** `session`: the session the body belongs to, if known (src/compaction/job-session.ts). */
  compact(
    input: JobInput,
    options: JobCompactOptions,
    signal: AbortSignal,
    session?: string | undefined,
  ) {
    const request: Request = { kind: "compact", input, options };
    return this.#run(request, signal, session) as Promise<CompactOutcome>;
  }

  rehydrate(input: JobInput, options: RehydrateOptions, signal: AbortSignal) {
    const request: Request = { kind: "rehydrate", input, options };
    return this.#run(request, signal, undefined) as Promise<RehydrateOutcome>;
  }

  /**
   * Starts every worker now, so the first large body does not wait for one to boot, and keeps
   * them all running from then on. Resolves once every worker has loaded (or stopped).
   */
  async warm(): Promise<void> {
    this.#warm = true;
    this.#refill();
    await Promise.all(this.#slots.map((slot) => slot.loaded));
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new JobAbandonedError());
    await Promise.all(this.#slots.splice(0).map((slot) => this.#stop(slot)));
  }

  #run(request: Request, signal: AbortSignal, session: string | undefined): Promise<JobOutcome> {
    if (this.#closed || signal.aborted) return Promise.reject(new JobAbandonedError());
    return new Promise<JobOutcome>((resolve, reject) => {
      const bytes = request.input.length;
      const job: Job = {
        request,
        session,
        bytes,
        large: bytes >= LARGE_JOB_BYTES,
        signal,
        resolve: (outcome) => {
          signal.removeEventListener("abort", abandon);
          resolve(outcome);
        },
        reject: (error) => {
          signal.removeEventListener("abort", abandon);
          reject(error);
        },
      };
      const abandon = () => this.#abandon(job);
      signal.addEventListener("abort", abandon, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  #pump(): void {
    while (!this.#closed && this.#queue.length > 0) {
      const workers = this.#slots.map(placementView);
      const placed = placeNext(this.#queue, workers, (session) => this.#homes.peek(session));
      if (placed.job !== undefined) {
        const slot = this.#slots.find((candidate) => candidate.id === placed.worker.id) as Slot;
        this.#dispatch(slot, this.#queue.splice(placed.job, 1)[0] as Job);
        continue;
      }
      // Nothing can start now: start workers for the jobs waiting for one, beyond those
      // booting (a job waiting for its busy home needs none).
      const booting = this.#slots.filter((slot) => !slot.ready).length;
      const wanted = Math.min(
        this.#queue.length - placed.waitingForHome - booting,
        this.#options.size - this.#slots.length,
      );
      for (let started = 0; started < wanted; started++) this.#spawn();
      return;
    }
  }

  #refill(): void {
    while (this.#warm && !this.#closed && this.#slots.length < this.#options.size) this.#spawn();
  }

  #spawn(): Slot {
    const worker = startWorker(this.#setup, this.#options.resourceLimits);
    let loaded = () => {};
    // With two workers or more, one is the reserve: it never runs a large body, so its heap
    // stays small and medium bodies always have a worker. A replacement takes the missing role.
    const reserve =
      this.#options.size > 1 &&
      !this.#slots.some((slot) => slot.reserve) &&
      this.#slots.some((slot) => !slot.reserve);
    const slot: Slot = {
      id: this.#nextId++,
      worker,
      reserve,
      ready: false,
      running: undefined,
      loaded: new Promise<void>((done) => {
        loaded = done;
      }),
    };
    worker.unref();
    worker.once("exit", () => loaded());
    let failure: unknown;
    worker.on("message", (message: { type?: string }) => {
      if (message?.type !== "ready") return;
      slot.ready = true;
      loaded();
      this.#pump();
    });
    worker.on("error", (error) => {
      failure = error;
    });
    worker.on("exit", (code) => {
      const index = this.#slots.indexOf(slot);
      if (index < 0) return;
      this.#slots.splice(index, 1);
      const running = slot.running;
      if (running) {
        this.#release(slot);
        running.job.reject(new WorkerExitedError(code, { cause: failure }));
      } else if (!slot.ready) {
        // A worker that cannot even load fails the jobs waiting for it rather than being
        // started again and again; the next job tries a fresh one.
        for (const job of this.#queue.splice(0)) {
          job.reject(new WorkerExitedError(code, { cause: failure }));
        }
        return;
      }
      this.#refill();
      this.#pump();
    });
    this.#slots.push(slot);
    return slot;
  }

  #dispatch(slot: Slot, job: Job): void {
    const { session } = job;
    const home = session !== undefined && this.#homes.get(session) === slot.id;
    if (session !== undefined) this.#homes.set(session, slot.id);
    this.#options.onStart?.({ session, threadId: slot.worker.threadId, home });
    const { port1, port2 } = new MessageChannel();
    // A compaction's answer sent ahead of the store write that commits it: the job is answered
    // as soon as that write succeeds here; the worker takes its next job once it reports done.
    let ahead: CompactResult | undefined;
    let answered = false;
    const served = serveStore(port1, this.#options.store, (method, ok) => {
      if (method !== "put" || ahead === undefined) return;
      const result = ahead;
      ahead = undefined;
      if (!ok || slot.running?.job !== job) return;
      answered = true;
      job.resolve({ kind: "compacted", result });
    });
    slot.running = { job, port: port1, refuse: served.refuse };
    port1.on("message", (message: { type: string }) => {
      if (message.type === "answer-ahead") {
        ahead = (message as AnswerAhead).result;
        return;
      }
      if (message.type !== "job-done" || slot.running?.job !== job) return;
      this.#release(slot);
      const { outcome } = message as JobDone;
      if (outcome.kind !== "answered_ahead") job.resolve(outcome);
      else if (!answered) job.reject(new Error("the worker's answer was never acknowledged"));
      this.#pump();
    });
    // The body is not transferred: the caller keeps its bytes to answer with them. Bytes in
    // shared memory (a body read by the server) are shared with the worker, others copied.
    slot.worker.postMessage({ ...job.request, port: port2 }, [port2]);
    slot.worker.ref();
  }

  #release(slot: Slot): void {
    const running = slot.running;
    if (!running) return;
    slot.running = undefined;
    running.port.close();
    slot.worker.unref();
  }

  #abandon(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      job.reject(new JobAbandonedError());
      return;
    }
    const slot = this.#slots.find((candidate) => candidate.running?.job === job);
    if (!slot?.running) return;
    slot.running.refuse();
    this.#slots.splice(this.#slots.indexOf(slot), 1);
    this.#release(slot);
    job.reject(new JobAbandonedError());
    void this.#stop(slot);
    this.#refill();
    this.#pump();
  }

  async #stop(slot: Slot): Promise<void> {
    slot.running?.refuse();
    this.#release(slot);
    await slot.worker.terminate().catch(() => undefined);
  }
}

function placementView(slot: Slot): PlacementWorker {
  const running = slot.running?.job;
  return {
    id: slot.id,
    ready: slot.ready,
    reserve: slot.reserve,
    running: running && { session: running.session, bytes: running.bytes },
  };
}
