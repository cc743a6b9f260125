import { describe, expect, it } from "vitest";
import { Metrics } from "../../src/observability/metrics.js";
import { observedStore } from "../../src/observability/observed-store.js";
import type { Store } from "../../src/store/types.js";
import { sample } from "./prometheus-text.js";

const failing: Store = {
  backend: "redis",
  persists: true,
  put: async () => {
    throw new Error("put failed");
  },
  get: async () => {
    throw new Error("get failed");
  },
  ledger: () => {
    throw new Error("ledger failed synchronously");
  },
  keep: async () => {},
  observe: async () => {
    throw new Error("observe failed");
  },
  sharedNumber: async () => 42,
  swapSharedNumber: async () => {
    throw new Error("swap failed");
  },
  ready: async () => false,
  stats: async () => ({ entries: 0, bytes: 0 }),
  close: async () => {},
};

describe("observedStore", () => {
  it("counts each rejected call by operation and passes errors and results through", async () => {
    const metrics = new Metrics({ processMetrics: false });
    const store = observedStore(failing, metrics);
    await expect(store.put("s", [{ key: "k", value: "v" }])).rejects.toThrow("put failed");
    await expect(store.put("s", [])).rejects.toThrow("put failed");
    await expect(store.get("s", "k")).rejects.toThrow("get failed");
    await expect(store.ledger("s")).rejects.toThrow("ledger failed synchronously");
    await expect(store.keep("s", ["a"])).resolves.toBeUndefined();
    await expect(store.sharedNumber("n")).resolves.toBe(42);
    await expect(store.swapSharedNumber("n", 42, 43, 1000)).rejects.toThrow("swap failed");
    await expect(store.ready()).resolves.toBe(false);
    expect([store.backend, store.persists]).toEqual(["redis", true]);
    const text = await metrics.render();
    expect(
      ["put", "get", "ledger", "keep", "sharedNumber", "swapSharedNumber", "ready"].map(
        (operation) => sample(text, "cg_store_errors_total", { operation }),
      ),
    ).toEqual([2, 1, 1, 0, 0, 1, 0]);
  });
});
