import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { storeSchema } from "../../src/config/schema.js";
import { StoreTimeoutError, StoreUnavailableError } from "../../src/errors/store-error.js";
import { withDeadline } from "../../src/store/deadline.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { Store } from "../../src/store/types.js";

const never = () => new Promise<never>(() => {});

/** A store whose every call hangs, except where `answers` says otherwise. */
function hangingStore(answers: Partial<Store> = {}): Store {
  return {
    backend: "redis",
    persists: true,
    put: never,
    get: never,
    ledger: never,
    keep: never,
    observe: never,
    sharedNumber: never,
    swapSharedNumber: never,
    ready: never,
    stats: never,
    close: never,
    ...answers,
  };
}

describe("withDeadline", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it.each([
    { operation: "put", call: (store: Store) => store.put("s", [{ key: "k", value: "v" }]) },
    { operation: "get", call: (store: Store) => store.get("s", "k") },
    { operation: "ledger", call: (store: Store) => store.ledger("s") },
    { operation: "keep", call: (store: Store) => store.keep("s", ["a"]) },
    {
      operation: "observe",
      call: (store: Store) =>
        store.observe("s", {
          observation: {
            at: 0,
            idleMs: 1,
            predicted: "hit",
            observed: "miss",
            cachedTokens: 0,
            inputTokens: 10,
          },
          sessionLifetimeMs: undefined,
        }),
    },
    { operation: "sharedNumber", call: (store: Store) => store.sharedNumber("n") },
    {
      operation: "swapSharedNumber",
      call: (store: Store) => store.swapSharedNumber("n", undefined, 1, 1000),
    },
    { operation: "stats", call: (store: Store) => store.stats() },
    { operation: "close", call: (store: Store) => store.close() },
  ])("rejects a hanging $operation after the deadline", async ({ operation, call }) => {
    const pending = call(withDeadline(hangingStore(), 250));
    const settled = pending.then(
      () => "resolved",
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(249);
    const early = await Promise.race([settled, Promise.resolve("pending")]);
    await vi.advanceTimersByTimeAsync(1);
    const error = await settled;
    expect([early, error instanceof StoreTimeoutError, (error as Error).message]).toEqual([
      "pending",
      true,
      `store ${operation}: no answer within 250 ms`,
    ]);
  });

  it("answers ready() false instead of rejecting when the backend hangs", async () => {
    const ready = withDeadline(hangingStore(), 250).ready();
    await vi.advanceTimersByTimeAsync(250);
    expect(await ready).toBe(false);
  });

  it("passes results and errors of a prompt backend through unchanged", async () => {
    const failure = new StoreUnavailableError("get", { cause: new Error("connection refused") });
    const store = withDeadline(
      hangingStore({
        get: async () => Promise.reject(failure),
        ledger: async () => ({ lastRequestAt: 1, heads: new Map(), kept: new Set(["a"]) }),
      }),
      250,
    );
    await expect(store.get("s", "k")).rejects.toBe(failure);
    expect([...(await store.ledger("s")).kept]).toEqual(["a"]);
  });

  it("keeps the backend name and persistence of the wrapped store", async () => {
    const wrapped = withDeadline(new MemoryStore(storeSchema.parse({})), 250);
    await wrapped.put("s", [{ key: "k", value: "v" }]);
    expect([wrapped.backend, wrapped.persists, await wrapped.get("s", "k")]).toEqual([
      "memory",
      true,
      "v",
    ]);
  });
});
