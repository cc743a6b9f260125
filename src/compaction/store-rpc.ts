import type { MessagePort } from "node:worker_threads";
import {
  StoreCapacityError,
  StoreEntryTooLargeError,
  StoreError,
  StoreTimeoutError,
  StoreUnavailableError,
} from "../errors/store-error.js";
import type { Store } from "../store/types.js";

/**
 * The process's one store (§7), reached from a worker thread over a MessagePort: the worker holds
 * a stand-in that forwards every method call by name, with structured-cloned arguments, to the
 * store on the event-loop thread, so both threads read and write the same originals and a new
 * store method needs no change here. Calls made in the same turn of the worker's event loop
 * travel as one message (a body with a hundred thousand outputs makes a hundred thousand
 * lookups).
 */

interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}
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
  | { readonly type: "store-calls"; readonly batch: number; readonly calls: readonly Call[] }
  | { readonly type: "store-results"; readonly batch: number; readonly results: Settled[] };

/** Calls per message: large enough to amortise a message, small enough to bound one. */
const BATCH = 4096;
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
  port.on("message", (message: StoreRpcMessage) => {
    if (message.type !== "store-calls") return;
    const pending = message.calls.map((call) => {
      if (refused) return Promise.reject(new StoreError(call.method, "the job was abandoned"));
      const method = target[call.method];
      if (typeof method !== "function" || REFUSED.has(call.method)) {
        return Promise.reject(new StoreError(call.method, "not a store method"));
      }
      try {
        return Promise.resolve(method.apply(store, call.args) as unknown);
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
    },
  };
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

  constructor(snapshot: Readonly<Record<string, string | number | boolean>>) {
    const call = (method: string, args: unknown[]) => this.#call(method, args);
    this.store = new Proxy({} as Store, {
      get(_target, name) {
        if (typeof name !== "string") return undefined;
        if (Object.hasOwn(snapshot, name)) return snapshot[name];
        // Not a thenable: `await store` must not call the backend.
        if (name === "then") return undefined;
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
          calls: calls.map(({ method, args }) => ({ method, args })),
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
