import { describe, expect, it } from "vitest";
import { storeSchema } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";

describe("createStore", () => {
  it.each([
    // Stashes off (clean mode): nothing is kept but the session ledgers, on the chosen backend.
    { store: { enabled: false }, backend: "memory", persists: false },
    { store: { enabled: false, backend: "redis" }, backend: "redis", persists: false },
    { store: {}, backend: "memory", persists: true },
    { store: { backend: "memory" }, backend: "memory", persists: true },
  ] as const)("builds the $backend store from $store", async ({ store, backend, persists }) => {
    const created = createStore(storeSchema.parse(store));
    expect({ backend: created.backend, persists: created.persists }).toEqual({ backend, persists });
    await created.close();
  });

  it("drives the memory store's TTLs by the injected clock", async () => {
    let now = 0;
    const store = createStore(storeSchema.parse({ ttl_seconds: 1 }), { clock: () => now });
    await store.put("s", [{ key: "k", value: "v" }]);
    now = 1_001;
    expect(await store.get("s", "k")).toBeUndefined();
  });
});
