import type { Store } from "../store/types.js";
import type { Metrics, StoreOperation } from "./metrics.js";

/**
 * The same store, with every rejected call counted in `cg_store_errors_total` by operation.
 * Results and errors pass through untouched; callers keep their own fallbacks.
 */
export function observedStore(store: Store, metrics: Pick<Metrics, "storeError">): Store {
  const counted = <T>(operation: StoreOperation, call: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve) => resolve(call())).catch((error: unknown) => {
      metrics.storeError(operation);
      throw error;
    });
  return {
    backend: store.backend,
    persists: store.persists,
    put: (session, entries, options) => counted("put", () => store.put(session, entries, options)),
    get: (session, key) => counted("get", () => store.get(session, key)),
    ledger: (session) => counted("ledger", () => store.ledger(session)),
    keep: (session, ids) => counted("keep", () => store.keep(session, ids)),
    observe: (session, write) => counted("observe", () => store.observe(session, write)),
    sharedNumber: (name) => counted("sharedNumber", () => store.sharedNumber(name)),
    swapSharedNumber: (name, expected, next, ttlMs) =>
      counted("swapSharedNumber", () => store.swapSharedNumber(name, expected, next, ttlMs)),
    ready: () => counted("ready", () => store.ready()),
    stats: () => store.stats(),
    close: () => store.close(),
  };
}
