import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { Compactor, type CompactResult } from "../compact/compactor.js";
import { components } from "../components/registry.js";
import { InvalidBodyError, rehydrate } from "../rehydrate.js";
import { bodyText } from "../text/utf8.js";
import type {
  AnswerAhead,
  AnsweredAhead,
  CompactOutcome,
  JobDone,
  JobRequest,
  RehydrateOutcome,
  TooCostly,
  WorkerSetup,
} from "./job.js";
import { jobHeapBudget, overBudget } from "./job-cost.js";
import { StoreClient } from "./store-rpc.js";

/**
 * A compaction worker thread: the same Compactor and rehydration as the event-loop thread, over
 * the process's one store (reached through the job's port). It runs one job at a time; its
 * memos (token counts, ids, component results) are its own.
 */
const setup = workerData as WorkerSetup;
const client = new StoreClient(setup.store);
const compactor = new Compactor({
  config: setup.config,
  store: client.store,
  registry: components,
  hashKey: setup.hashKey,
});

/** Undefined when the job's estimated heap fits the budget, else why it is refused. */
function tooCostly(job: JobRequest): TooCostly | undefined {
  const estimate = overBudget(job.kind, job.input, budget);
  return estimate === undefined ? undefined : { kind: "too_costly", estimate, budget };
}

async function compact(
  job: Extract<JobRequest, { kind: "compact" }>,
): Promise<CompactOutcome | AnsweredAhead> {
  const refused = tooCostly(job);
  if (refused) return refused;
  const text = bodyText(job.input);
  if (text === undefined) return { kind: "not_utf8" };
  try {
    let sent: CompactResult | undefined;
    const ahead = (result: CompactResult) => {
      sent = result;
      const message: AnswerAhead = { type: "answer-ahead", result };
      job.port.postMessage(message);
    };
    const result = await compactor.compact(text, { ...job.options, ahead });
    // The answer sent ahead stands once its write succeeded: it is not sent again.
    return result === sent ? { kind: "answered_ahead" } : { kind: "compacted", result };
  } catch (error) {
    return { kind: "failed", message: error instanceof Error ? error.message : String(error) };
  }
}

async function rehydrateJob(
  job: Extract<JobRequest, { kind: "rehydrate" }>,
): Promise<RehydrateOutcome> {
  const refused = tooCostly(job);
  if (refused) return refused;
  const text = bodyText(job.input);
  if (text === undefined) return { kind: "not_utf8" };
  try {
    const result = await rehydrate(text, client.store, compactor.hash, job.options);
    return { kind: "rehydrated", result };
  } catch (error) {
    if (error instanceof InvalidBodyError) return { kind: "invalid_body", message: error.message };
    return {
      kind: "store_failed",
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

// Loaded (the tokenizer's tables included): from now on a job starts at once, and what the
// worker holds now is what every job's heap comes on top of.
const heap = getHeapStatistics();
const budget = jobHeapBudget(
  heap.heap_size_limit,
  heap.used_heap_size,
  setup.config.limits.memo_bytes,
);
parentPort?.postMessage({ type: "ready" });
parentPort?.on("message", async (job: JobRequest) => {
  client.attach(job.port);
  const outcome = job.kind === "compact" ? await compact(job) : await rehydrateJob(job);
  client.detach();
  const done: JobDone = { type: "job-done", outcome };
  job.port.postMessage(done);
  job.port.close();
});
