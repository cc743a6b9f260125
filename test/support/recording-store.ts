import type { Store } from "../../src/store/types.js";

/** One call that reached the store: the method's name and when it arrived. */
export interface StoreCall {
  readonly method: string;
  readonly args: readonly unknown[];
  readonly at: number;
}

/**
 * The same store, recording every call that reaches it (by name, so it holds for any method the
 * interface has) and answering each `delayMs` later: a slow backend that a test can watch.
 */
export function recordingStore(store: Store, delayMs = 0): { store: Store; calls: StoreCall[] } {
  const calls: StoreCall[] = [];
  const target = store as unknown as Record<string | symbol, unknown>;
  const recorded = new Proxy(target, {
    get(_target, name) {
      const value = target[name];
      if (typeof value !== "function" || typeof name !== "string") return value;
      return async (...args: unknown[]) => {
        calls.push({ method: name, args, at: performance.now() });
        if (delayMs > 0) await new Promise((done) => setTimeout(done, delayMs));
        return (value as (...a: unknown[]) => unknown).apply(store, args);
      };
    },
  });
  return { store: recorded as unknown as Store, calls };
}
