import type { CompactOptions, Compactor, CompactResult } from "../compact/compactor.js";
import type { Config } from "../config/schema.js";
import { InvalidBodyError, rehydrate } from "../rehydrate.js";
import type { Store } from "../store/types.js";
import { bodyText } from "../text/utf8.js";
import type { InflightBytes } from "./inflight.js";
import type { JobInput, RehydrateOptions, RehydrateOutcome } from "./job.js";
import { jobSession } from "./job-session.js";
import type { WorkerPool } from "./worker-pool.js";

/** Where a job ran and how it ended, for metrics. */
export type JobKind = "compact" | "rehydrate";
export type JobThread = "inline" | "worker";
export type JobEnd = "completed" | "deadline" | "declined" | "failed";

export interface CompactionDeps {
  readonly config: Config;
  /** The event-loop thread's compactor, for bodies below `limits.worker_min_bytes`. */
  readonly compactor: Compactor;
  readonly store: Store;
  /** Worker threads for larger bodies; without it every body is compacted inline. */
  readonly pool: WorkerPool | undefined;
  readonly inflight: InflightBytes;
  readonly onJob?: (kind: JobKind, thread: JobThread, end: JobEnd) => void;
  /** Every compaction that came back with a result (model-call failures are logged from it). */
  readonly onCompacted?: (result: CompactResult) => void;
}

/** /rehydrate's answer: the worker's outcome, or why there is none. */
export type RehydrateAnswer = RehydrateOutcome | { readonly kind: "busy" | "deadline" | "failed" };

/**
 * Why a compaction gave no answer: not admitted (`limits.inflight_bytes` in flight), past
 * `limits.compact_timeout_ms`, a body its worker could not hold, not UTF-8, or a failure.
 */
export type CompactMiss = "busy" | "deadline" | "too_costly" | "not_utf8" | "failed";

/**
 * The one way routes compact and rehydrate bodies (§10): admitted by bytes in flight, run inline
 * when small and on a worker thread when large, and bounded by `limits.compact_timeout_ms`
 * (`limits.rehydrate_timeout_ms` for /rehydrate)
 * whatever the worker is doing. A compaction that was not admitted, passed its deadline or
 * failed resolves why (`CompactMiss`): the caller sends the original bytes and says so.
 */
export class Compaction {
  constructor(private readonly deps: CompactionDeps) {}

  async compact(
    input: JobInput,
    options: CompactOptions = {},
  ): Promise<CompactResult | CompactMiss> {
    const { pool, compactor } = this.deps;
    const thread = this.#threadFor(input);
    const release = this.deps.inflight.admit(input.length);
    if (!release) return this.#ended("compact", thread, "declined", "busy");
    const deadline = this.#deadline(options.signal);
    try {
      if (thread === "worker" && pool) {
        const { signal: _signal, commit: _commit, ahead: _ahead, ...crossing } = options;
        const session = jobSession(input, options.session ?? options.placement);
        const outcome = await pool.compact(input, crossing, deadline.signal, session);
        if (outcome.kind === "compacted") {
          this.deps.onCompacted?.(outcome.result);
          return this.#ended("compact", thread, "completed", outcome.result);
        }
        if (outcome.kind === "too_costly")
          return this.#ended("compact", thread, "declined", "too_costly");
        return this.#ended(
          "compact",
          thread,
          "failed",
          outcome.kind === "not_utf8" ? "not_utf8" : "failed",
        );
      }
      const text = bodyText(input);
      if (text === undefined) return this.#ended("compact", thread, "failed", "not_utf8");
      // A compaction that reached its store write has committed its answer: the deadline no
      // longer cuts it off (the write is bounded by store.timeout_ms), and one that reaches it
      // past the deadline writes nothing, so the ledger never records a body not returned.
      const result = await Promise.race([
        compactor.compact(text, { ...options, signal: deadline.signal, commit: deadline.commit }),
        deadline.passed,
      ]);
      if (result) this.deps.onCompacted?.(result);
      if (result) return this.#ended("compact", thread, "completed", result);
      return this.#ended("compact", thread, "deadline", "deadline");
    } catch {
      const end = deadline.signal.aborted ? "deadline" : "failed";
      return this.#ended("compact", thread, end, end);
    } finally {
      deadline.clear();
      release();
    }
  }

  async rehydrate(input: Uint8Array, options: RehydrateOptions): Promise<RehydrateAnswer> {
    const { pool, store, compactor } = this.deps;
    // On a worker whatever the body's size: a body of a few kilobytes may restore an original of
    // megabytes (a collapsed build log), and rebuilding and sending it would hold the event loop.
    const thread: JobThread = pool ? "worker" : "inline";
    const release = this.deps.inflight.admit(input.length);
    if (!release) return this.#ended("rehydrate", thread, "declined", { kind: "busy" });
    const deadline = this.#deadline(undefined, this.deps.config.limits.rehydrate_timeout_ms);
    try {
      if (thread === "worker" && pool) {
        const outcome = await pool.rehydrate(input, options, deadline.signal);
        const end = outcome.kind === "too_costly" ? "declined" : "completed";
        return this.#ended("rehydrate", thread, end, outcome);
      }
      const text = bodyText(input);
      if (text === undefined) return this.#ended("rehydrate", thread, "completed", notUtf8);
      const result = await Promise.race([
        rehydrate(text, store, compactor.hash, options),
        deadline.passed,
      ]);
      if (!result) return this.#ended("rehydrate", thread, "deadline", { kind: "deadline" });
      return this.#ended("rehydrate", thread, "completed", { kind: "rehydrated", result });
    } catch (error) {
      if (error instanceof InvalidBodyError) {
        return this.#ended("rehydrate", thread, "completed", {
          kind: "invalid_body",
          message: error.message,
        });
      }
      if (deadline.signal.aborted) {
        return this.#ended("rehydrate", thread, "deadline", { kind: "deadline" });
      }
      const message = error instanceof Error ? error.message : String(error);
      const answer: RehydrateAnswer =
        thread === "inline" ? { kind: "store_failed", message } : { kind: "failed" };
      return this.#ended("rehydrate", thread, "failed", answer);
    } finally {
      deadline.clear();
      release();
    }
  }

  #threadFor(input: JobInput): JobThread {
    return this.deps.pool && input.length >= this.deps.config.limits.worker_min_bytes
      ? "worker"
      : "inline";
  }

  /** Aborts after `ms` (a `limits.*_timeout_ms`), or when `outer` (the client going away) aborts. */
  #deadline(outer: AbortSignal | undefined, ms = this.deps.config.limits.compact_timeout_ms) {
    const controller = new AbortController();
    let resolvePassed: (value: undefined) => void = () => {};
    const passed = new Promise<undefined>((resolve) => {
      resolvePassed = resolve;
    });
    let committed = false;
    const abort = () => {
      if (committed) return;
      controller.abort();
      resolvePassed(undefined);
    };
    const timer = setTimeout(abort, ms);
    if (outer?.aborted) abort();
    else outer?.addEventListener("abort", abort, { once: true });
    return {
      signal: controller.signal,
      passed,
      commit: () => {
        if (controller.signal.aborted) return false;
        committed = true;
        return true;
      },
      clear: () => {
        clearTimeout(timer);
        outer?.removeEventListener("abort", abort);
      },
    };
  }

  #ended<T>(kind: JobKind, thread: JobThread, end: JobEnd, value: T): T {
    this.deps.onJob?.(kind, thread, end);
    return value;
  }
}

const notUtf8: RehydrateOutcome = { kind: "not_utf8" };
