import { StoreTimeoutError } from "../errors/store-error.js";
import type { PutOptions, StashEntry, Store, StoreStats } from "./types.js";

/**
 * Bounds every call of `store` by `timeoutMs` (`store.timeout_ms`): a call that has not settled
 * by then rejects with StoreTimeoutError, so a stalled backend never holds a request. The late
 * result of the inner call is dropped. `ready()` answers false instead of rejecting: a readiness
 * probe must always get an answer.
 */
export function withDeadline(store: Store, timeoutMs: number): Store {
  const bound = <T>(operation: string, call: () => Promise<T>) =>
    raceDeadline(operation, timeoutMs, call);
  return {
    backend: store.backend,
    persists: store.persists,
    put: (session: string, entries: readonly StashEntry[], options?: PutOptions) =>
      bound("put", () => store.put(session, entries, options)),
    get: (session: string, key: string) => bound("get", () => store.get(session, key)),
    ledger: (session: string) => bound("ledger", () => store.ledger(session)),
    keep: (session: string, ids: readonly string[]) =>
      bound("keep", () => store.keep(session, ids)),
    observe: (session, write) => bound("observe", () => store.observe(session, write)),
    sharedNumber: (name) => bound("sharedNumber", () => store.sharedNumber(name)),
    swapSharedNumber: (name, expected, next, ttlMs) =>
      bound("swapSharedNumber", () => store.swapSharedNumber(name, expected, next, ttlMs)),
    ready: () => bound("ready", () => store.ready()).catch(() => false),
    stats: (): Promise<StoreStats> => bound("stats", () => store.stats()),
    close: () => bound("close", () => store.close()),
  };
}

function raceDeadline<T>(operation: string, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreTimeoutError(operation, timeoutMs)), timeoutMs);
    timer.unref();
    let pending: Promise<T>;
    try {
      pending = call();
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
