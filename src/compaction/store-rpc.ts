import type { MessagePort } from "node:worker_threads";
import {
  StoreCapacityError,
  StoreEntryTooLargeError,
  StoreError,
  StoreTimeoutError,
  StoreUnavailableError,
} from "../errors/store-error.js";
import type { StashEntry, Store } from "../store/types.js";

/**
 * The process's one store (§7), reached from a worker thread over a MessagePort: the worker holds
 * a stand-in that forwards every method call by name, with structured-cloned arguments, to the
 * store on the event-loop thread, so both threads read and write the same originals and a new
 * store method needs no change here. Calls made in the same turn of the worker's event loop
 * travel as one message (a body with a hundred thousand outputs makes a hundred thousand
 * lookups).
 *
 * A long value a coming put will carry may be sent ahead (`stage`): the event-loop thread
 * copies it into its own heap while the worker goes on with the body, and the put names it by
 * number. Copying a megabyte of text into fresh memory there took 3-4 ms, all of it between
 * the put and its acknowledgement.
 */

interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}
/** A put's entry as it crosses: its value, or the number of the staged value it carries. */
type WireEntry = StashEntry | { readonly key: string; readonly staged: number };
/** A call's settled value, or its error as plain fields. */
type Settled =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ErrorFields };
interface ErrorFields {
  readonly name: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}
export type StoreRpcMessage =
  | { readonly type: "store-stage"; readonly id: number; readonly value: string }
  | { readonly type: "store-calls"; readonly batch: number; readonly calls: readonly Call[] }
  | { readonly type: "store-results"; readonly batch: number; readonly results: Settled[] };

/** Calls per message: large enough to amortise a message, small enough to bound one. */
const BATCH = 4096;
/** Values shorter than this travel with their put: copying them costs less than a message. */
export const STAGE_MIN_CHARS = 64 * 1024;
/**
 * Characters one job may send ahead; later values travel with their put. The event-loop thread
 * holds what was sent ahead until the job ends, whether a put carried it or not: this bounds
 * it (the memory arithmetic of k8s/README.md counts it).
 */
export const STAGE_MAX_CHARS = 8 * 1024 * 1024;
/** A worker may use the store; it never ends it for the whole process. */
const REFUSED = new Set(["close"]);

/** The store's plain values (`backend`, `persists`), which the stand-in answers by itself. */
export function storeSnapshot(store: Store): Record<string, string | number | boolean> {
  const snapshot: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(store)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      snapshot[key] = value;
    }
  }
  return snapshot;
}

/**
 * Answers the store calls of one job on `port`. Once `refuse()` is called (the job was answered
 * without waiting for it, at its deadline), every later call is refused without touching the
 * store: a late write would record decisions for a body that was never returned. `settled` hears
 * of each call as it settles here, before the worker does.
 */
export function serveStore(
  port: MessagePort,
  store: Store,
  settled?: (method: string, ok: boolean) => void,
): { refuse(): void } {
  let refused = false;
  const target = store as unknown as Record<string, unknown>;
  // The values this job sent ahead, held until its port closes.
  const staged = new Map<number, string>();
  port.on("close", () => staged.clear());
  port.on("message", (message: StoreRpcMessage) => {
    if (message.type === "store-stage") {
      if (!refused) staged.set(message.id, message.value);
      return;
    }
    if (message.type !== "store-calls") return;
    const pending = message.calls.map((call) => {
      if (refused) return Promise.reject(new StoreError(call.method, "the job was abandoned"));
      const method = target[call.method];
      if (typeof method !== "function" || REFUSED.has(call.method)) {
        return Promise.reject(new StoreError(call.method, "not a store method"));
      }
      try {
        const args = call.method === "put" ? withStagedValues(call.args, staged) : call.args;
        return Promise.resolve(method.apply(store, args) as unknown);
      } catch (error) {
        return Promise.reject(error);
      }
    });
    void Promise.allSettled(pending).then((outcomes) => {
      outcomes.forEach((outcome, index) => {
        settled?.((message.calls[index] as Call).method, outcome.status === "fulfilled");
      });
      const results = outcomes.map(
        (outcome): Settled =>
          outcome.status === "fulfilled"
            ? { ok: true, value: outcome.value }
            : { ok: false, error: errorFields(outcome.reason) },
      );
      try {
        port.postMessage({ type: "store-results", batch: message.batch, results });
      } catch {
        // The job's port closed meanwhile: nobody is waiting for these results.
      }
    });
  });
  return {
    refuse: () => {
      refused = true;
      staged.clear();
    },
  };
}

/** A put's arguments with each staged value in its entry again; throws for one never received. */
function withStagedValues(args: readonly unknown[], staged: ReadonlyMap<number, string>) {
  const [session, entries, ...rest] = args as [string, readonly WireEntry[], ...unknown[]];
  const resolved = entries.map((entry): StashEntry => {
    if (!("staged" in entry)) return entry;
    const value = staged.get(entry.staged);
    if (value === undefined) throw new StoreError("put", `staged value ${entry.staged} never came`);
    return { key: entry.key, value };
  });
  return [session, resolved, ...rest];
}

/** A put's arguments with each value sent ahead named by its number. */
function withStagedIds(args: readonly unknown[], staged: ReadonlyMap<string, number>) {
  if (staged.size === 0) return args;
  const [session, entries, ...rest] = args as [string, readonly StashEntry[], ...unknown[]];
  const named = entries.map((entry): WireEntry => {
    const id = entry.value.length >= STAGE_MIN_CHARS ? staged.get(entry.value) : undefined;
    return id === undefined ? entry : { key: entry.key, staged: id };
  });
  return [session, named, ...rest];
}

/**
 * The worker's side: `store` is a stand-in for the event-loop thread's store, attached to the
 * port of the job being run. Calls while no job is attached reject.
 */
export class StoreClient {
  readonly store: Store;
  #port: MessagePort | undefined;
  #queue: Array<Call & { resolve(value: unknown): void; reject(error: unknown): void }> = [];
  #flushing = false;
  #batches = 0;
  readonly #waiting = new Map<
    number,
    Array<{ resolve(v: unknown): void; reject(e: unknown): void }>
  >();
  /** The values this job sent ahead, each with its number (a long string's Map key is cheap). */
  readonly #staged = new Map<string, number>();
  #stagedChars = 0;

  constructor(snapshot: Readonly<Record<string, string | number | boolean>>) {
    const call = (method: string, args: unknown[]) => this.#call(method, args);
    const stage = (value: string) => this.#stage(value);
    this.store = new Proxy({} as Store, {
      get(_target, name) {
        if (typeof name !== "string") return undefined;
        if (Object.hasOwn(snapshot, name)) return snapshot[name];
        // Not a thenable: `await store` must not call the backend.
        if (name === "then") return undefined;
        if (name === "stage") return stage;
        return (...args: unknown[]) => call(name, args);
      },
    });
  }

  attach(port: MessagePort): void {
    this.#port = port;
    port.on("message", (message: StoreRpcMessage) => {
      if (message.type !== "store-results") return;
      const waiting = this.#waiting.get(message.batch);
      this.#waiting.delete(message.batch);
      message.results.forEach((result, index) => {
        const call = waiting?.[index];
        if (!call) return;
        if (result.ok) call.resolve(result.value);
        else call.reject(revivedError(result.error));
      });
    });
  }

  /** The job ended: calls still unanswered reject, later ones too until the next attach. */
  detach(): void {
    this.#port = undefined;
    this.#staged.clear();
    this.#stagedChars = 0;
    const error = new StoreError("call", "the job ended");
    for (const calls of this.#waiting.values()) for (const call of calls) call.reject(error);
    this.#waiting.clear();
    for (const call of this.#queue.splice(0)) call.reject(error);
  }

  #call(method: string, args: unknown[]): Promise<unknown> {
    if (this.#port === undefined) {
      return Promise.reject(new StoreError(method, "no job is running"));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ method, args, resolve, reject });
      if (this.#flushing) return;
      this.#flushing = true;
      setImmediate(() => this.#flush());
    });
  }

  /** Sends a long value ahead of the put that will carry it (see the top of this file). */
  #stage(value: string): void {
    const port = this.#port;
    if (port === undefined || value.length < STAGE_MIN_CHARS) return;
    if (this.#stagedChars + value.length > STAGE_MAX_CHARS || this.#staged.has(value)) return;
    const id = this.#staged.size;
    try {
      port.postMessage({ type: "store-stage", id, value });
      this.#staged.set(value, id);
      this.#stagedChars += value.length;
    } catch {
      // The put carries the value itself.
    }
  }

  #flush(): void {
    this.#flushing = false;
    const port = this.#port;
    while (port && this.#queue.length > 0) {
      const calls = this.#queue.splice(0, BATCH);
      const batch = this.#batches++;
      this.#waiting.set(batch, calls);
      try {
        port.postMessage({
          type: "store-calls",
          batch,
          calls: calls.map(({ method, args }) => ({
            method,
            args: method === "put" ? withStagedIds(args, this.#staged) : args,
          })),
        });
      } catch (error) {
        this.#waiting.delete(batch);
        for (const call of calls) call.reject(error);
      }
    }
  }
}

/** The store errors a caller may tell apart by class; each crosses the port by name. */
const STORE_ERRORS: Readonly<Record<string, { prototype: Error }>> = {
  StoreError,
  StoreTimeoutError,
  StoreUnavailableError,
  StoreEntryTooLargeError,
  StoreCapacityError,
};

function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (key === "cause" || typeof value === "function") continue;
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
      fields[key] = value;
    }
  }
  return { name: error.name, message: error.message, fields };
}

/** The same error on this side of the port: a store error keeps its class and its fields. */
function revivedError({ name, message, fields }: ErrorFields): Error {
  const known = STORE_ERRORS[name];
  const error: Error = known ? Object.create(known.prototype) : new Error(message);
  Object.defineProperty(error, "message", { value: message, writable: true, configurable: true });
  for (const [key, value] of Object.entries({ ...fields, name })) {
    Object.defineProperty(error, key, { value, enumerable: true, configurable: true });
  }
  if (known) Error.captureStackTrace(error, revivedError);
  return error;
}
