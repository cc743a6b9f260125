import type { MessagePort } from "node:worker_threads";
import type { CompactOptions, CompactResult } from "../compact/compactor.js";
import type { Config } from "../config/schema.js";
import type { RehydrateResult } from "../rehydrate.js";
import type { ProviderChoice } from "../wire/provider-choice.js";

/** What a compaction worker is started with: the process's configuration and store values. */
export interface WorkerSetup {
  readonly config: Config;
  /** The deployment's marker key (§6): every thread writes the same ids. */
  readonly hashKey: string;
  readonly store: Readonly<Record<string, string | number | boolean>>;
}

/**
 * The options of a compaction that cross to a worker: a signal and callbacks cannot (the pool
 * owns the deadline, and the worker's store calls past it are refused; the worker sends its
 * answer ahead itself).
 */
export type JobCompactOptions = Omit<CompactOptions, "signal" | "commit" | "ahead">;

export interface RehydrateOptions {
  readonly provider?: ProviderChoice;
  readonly session?: string | undefined;
}

/** A body as the request carried it (bytes, decoded by the worker) or already decoded. */
export type JobInput = Uint8Array | string;

/** One job for a worker; `port` carries its store calls and, last, its outcome. */
export type JobRequest =
  | {
      readonly kind: "compact";
      readonly input: JobInput;
      readonly options: JobCompactOptions;
      readonly port: MessagePort;
    }
  | {
      readonly kind: "rehydrate";
      readonly input: JobInput;
      readonly options: RehydrateOptions;
      readonly port: MessagePort;
    };

/** The body's estimated heap does not fit what the worker may give one job. */
export interface TooCostly {
  readonly kind: "too_costly";
  readonly estimate: number;
  readonly budget: number;
}

export type CompactOutcome =
  | { readonly kind: "compacted"; readonly result: CompactResult }
  | TooCostly
  | { readonly kind: "not_utf8" }
  | { readonly kind: "failed"; readonly message: string };

export type RehydrateOutcome =
  | { readonly kind: "rehydrated"; readonly result: RehydrateResult }
  | TooCostly
  | { readonly kind: "not_utf8" }
  | { readonly kind: "invalid_body"; readonly message: string }
  | { readonly kind: "store_failed"; readonly message: string };

export type JobOutcome = CompactOutcome | RehydrateOutcome;

/** The last message of a job on its port. */
export interface JobDone {
  readonly type: "job-done";
  readonly outcome: JobOutcome | AnsweredAhead;
}

/** The compaction's answer sent ahead stands: its store write succeeded (not sent twice). */
export interface AnsweredAhead {
  readonly kind: "answered_ahead";
}

/**
 * A compaction's answer, sent right before the store write that commits it (CompactOptions
 * `ahead`): it stands once the event-loop thread's store acknowledges that write.
 */
export interface AnswerAhead {
  readonly type: "answer-ahead";
  readonly result: CompactResult;
}
