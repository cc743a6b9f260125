import type { StashEntry, Store } from "../src/store/types.js";

/** Calls made to a store, by operation. */
export interface StoreCalls {
  ledger: number;
  put: number;
  keep: number;
  get: number;
}

export const noCalls = (): StoreCalls => ({ ledger: 0, put: 0, keep: 0, get: 0 });

/** The same store, counting each call into `calls` (results and errors pass through). */
export function countedStore(store: Store, calls: StoreCalls): Store {
  return {
    backend: store.backend,
    persists: store.persists,
    put: (session: string, entries: readonly StashEntry[], ...rest: unknown[]) => {
      calls.put++;
      return (store.put as (...args: unknown[]) => Promise<void>)(session, entries, ...rest);
    },
    get: (session, key) => {
      calls.get++;
      return store.get(session, key);
    },
    ledger: (session) => {
      calls.ledger++;
      return store.ledger(session);
    },
    keep: (session, ids) => {
      calls.keep++;
      return store.keep(session, ids);
    },
    observe: (session, write) => store.observe(session, write),
    sharedNumber: (name) => store.sharedNumber(name),
    swapSharedNumber: (name, expected, next, ttlMs) =>
      store.swapSharedNumber(name, expected, next, ttlMs),
    ready: () => store.ready(),
    stats: () => store.stats(),
    close: () => store.close(),
  };
}
