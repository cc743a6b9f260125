import { describe, expect, it } from "vitest";
import { type StoreConfig, storeSchema } from "../../src/config/schema.js";
import { StoreCapacityError, StoreEntryTooLargeError } from "../../src/errors/store-error.js";
import { ENTRY_OVERHEAD_BYTES } from "../../src/store/entry-size.js";
import { MemoryStore } from "../../src/store/memory.js";

function memoryStore(overrides: Partial<StoreConfig> = {}) {
  let now = 0;
  const config = storeSchema.parse({ ttl_seconds: 10, ...overrides });
  const store = new MemoryStore(config, { clock: () => now });
  return { store, advance: (ms: number) => (now += ms) };
}

describe("memory store: owners", () => {
  it.each([
    { session: "alice", key: "k1", expected: "one" },
    { session: "alice", key: "k2", expected: "two" },
    { session: "bob", key: "k1", expected: undefined },
    { session: "alice", key: "k3", expected: undefined },
  ])("$session reads $key as $expected", async ({ session, key, expected }) => {
    const { store } = memoryStore();
    await store.put("alice", [
      { key: "k1", value: "one" },
      { key: "k2", value: "two" },
    ]);
    expect(await store.get(session, key)).toBe(expected);
  });

  it("lets every session that stashed the same key read it", async () => {
    const { store } = memoryStore();
    await store.put("alice", [{ key: "k", value: "same" }]);
    await store.put("bob", [{ key: "k", value: "same" }]);
    expect([await store.get("alice", "k"), await store.get("bob", "k")]).toEqual(["same", "same"]);
  });

  it("keeps at most max_sessions owners per key, dropping the oldest", async () => {
    const { store } = memoryStore({ max_sessions: 2 });
    for (const session of ["s1", "s2", "s3"]) await store.put(session, [{ key: "k", value: "v" }]);
    const reads = await Promise.all(["s1", "s2", "s3"].map((session) => store.get(session, "k")));
    expect(reads).toEqual([undefined, "v", "v"]);
  });
});

describe("memory store: time", () => {
  it.each([
    { elapsed: 9_999, expected: "v" },
    { elapsed: 10_000, expected: "v" },
    { elapsed: 10_001, expected: undefined },
  ])("after $elapsed ms an unread entry reads $expected", async ({ elapsed, expected }) => {
    const { store, advance } = memoryStore();
    await store.put("s", [{ key: "k", value: "v" }]);
    advance(elapsed);
    expect(await store.get("s", "k")).toBe(expected);
  });

  it("slides the TTL on every owned read", async () => {
    const { store, advance } = memoryStore();
    await store.put("s", [{ key: "k", value: "v" }]);
    const reads: Array<string | undefined> = [];
    for (let step = 0; step < 3; step++) {
      advance(9_000);
      reads.push(await store.get("s", "k"));
    }
    advance(10_001);
    reads.push(await store.get("s", "k"));
    expect(reads).toEqual(["v", "v", "v", undefined]);
  });

  it("does not slide the TTL for a session that does not own the key", async () => {
    const { store, advance } = memoryStore();
    await store.put("owner", [{ key: "k", value: "v" }]);
    advance(9_000);
    expect(await store.get("stranger", "k")).toBeUndefined();
    advance(1_001);
    expect(await store.get("owner", "k")).toBeUndefined();
  });

  it("expires session ledgers after ttl_seconds without a read, and a read slides them", async () => {
    const { store, advance } = memoryStore();
    await store.keep("kept", ["a"]);
    await store.keep("idle", ["b"]);
    advance(9_000);
    expect([...(await store.ledger("kept")).kept]).toEqual(["a"]);
    advance(9_000);
    expect([
      [...(await store.ledger("kept")).kept],
      [...(await store.ledger("idle")).kept],
    ]).toEqual([["a"], []]);
  });
});

describe("memory store: bounds", () => {
  it("evicts the least recently used entry beyond max_entries", async () => {
    const { store } = memoryStore({ max_entries: 3, max_session_bytes: 256 * 1024 * 1024 });
    await store.put("s", [
      { key: "a", value: "A" },
      { key: "b", value: "B" },
      { key: "c", value: "C" },
    ]);
    await store.get("s", "a");
    await store.put("s", [{ key: "d", value: "D" }]);
    const reads = await Promise.all(["a", "b", "c", "d"].map((key) => store.get("s", key)));
    expect(reads).toEqual(["A", undefined, "C", "D"]);
  });

  it("counts exact UTF-8 bytes of value, key and owners, plus the fixed entry overhead", async () => {
    const { store } = memoryStore();
    await store.put("s1", [{ key: "k1", value: "é".repeat(10) }]);
    await store.put("s2", [{ key: "k1", value: "é".repeat(10) }]);
    // 256 of overhead + 20 bytes of value + 2 of key + 2 + 2 of owners.
    expect(ENTRY_OVERHEAD_BYTES).toBe(256);
    expect(await store.stats()).toEqual({ entries: 1, bytes: 282 });
  });

  it("bounds many tiny entries by max_bytes through the overhead, not only by max_entries", async () => {
    // Each entry: 256 + 1 of value + 2–3 of key + 1 of owner.
    const { store } = memoryStore({ max_bytes: 10 * 261, max_session_bytes: 10 * 261 });
    for (let index = 0; index < 40; index++) {
      await store.put("s", [{ key: `k${index}`, value: "x" }]);
    }
    const { entries, bytes } = await store.stats();
    expect(entries).toBe(10);
    expect(bytes).toBeLessThanOrEqual(10 * 261);
    expect(await store.get("s", "k39")).toBe("x");
    expect(await store.get("s", "k29")).toBeUndefined();
  });

  it("at the defaults max_bytes binds before max_entries once entries average 1.1 KB", () => {
    const config = storeSchema.parse({});
    expect([config.max_bytes, config.max_entries]).toEqual([256 * 1024 * 1024, 200_000]);
    const perEntry = config.max_bytes / config.max_entries - ENTRY_OVERHEAD_BYTES;
    expect(Math.round(perEntry)).toBe(1086);
  });

  it("never holds more than max_bytes", async () => {
    const { store } = memoryStore({ max_bytes: 1_000, max_session_bytes: 1_000 });
    const sizes: number[] = [];
    for (let index = 0; index < 50; index++) {
      await store.put("s", [{ key: `k${index}`, value: "x".repeat(90 + index) }]);
      sizes.push((await store.stats()).bytes);
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1_000);
    expect(await store.get("s", "k49")).toBe("x".repeat(139));
    expect(await store.get("s", "k0")).toBeUndefined();
  });

  it("rejects a whole put when one entry exceeds max_entry_bytes, keeping none of it", async () => {
    const { store } = memoryStore({ max_entry_bytes: 10 });
    const put = store.put("s", [
      { key: "small", value: "ok" },
      { key: "big", value: "ü".repeat(6) },
    ]);
    await expect(put).rejects.toThrow(new StoreEntryTooLargeError("big", 12, 10).message);
    await expect(put).rejects.toBeInstanceOf(StoreEntryTooLargeError);
    expect(await store.get("s", "small")).toBeUndefined();
  });

  it.each([
    {
      name: "more entries than max_entries",
      overrides: { max_entries: 2 },
      values: ["a", "b", "c"],
      message: "store put: 3 entries in one put, more than store.max_entries",
    },
    {
      name: "more bytes than max_bytes",
      overrides: { max_bytes: 5 },
      values: ["abc", "def"],
      message: "store put: 6 bytes in one put, more than store.max_bytes",
    },
  ])("rejects a put of $name", async ({ overrides, values, message }) => {
    const { store } = memoryStore(overrides);
    const entries = values.map((value, index) => ({ key: `k${index}`, value }));
    const put = store.put("s", entries);
    await expect(put).rejects.toBeInstanceOf(StoreCapacityError);
    await expect(put).rejects.toThrow(message);
  });

  it("rejects a put whose owner id tips max_bytes, as the entry would not be readable", async () => {
    // 256 + 40 of value + 2 of key + 2 of owner: exactly 300; a second owner adds 2 more.
    const { store } = memoryStore({ max_bytes: 300, max_session_bytes: 300 });
    await store.put("s1", [{ key: "k0", value: "a".repeat(40) }]);
    const put = store.put("s2", [{ key: "k0", value: "a".repeat(40) }]);
    await expect(put).rejects.toBeInstanceOf(StoreCapacityError);
    await expect(put).rejects.toThrow("store put: entry k0 did not fit within store.max_bytes");
  });

  it("drops the least recently used session's ledger beyond max_ledger_bytes", async () => {
    const { store } = memoryStore({ max_ledger_bytes: 600 });
    const write = (at: number) => ({
      at,
      chain: "c",
      head: { messages: 1, root: "", prints: "", tool: false, outputs: [], calls: [], at },
      evict: [],
    });
    await store.put("s1", [], { ledger: write(1) });
    await store.put("s2", [], { ledger: write(2) });
    await store.ledger("s1");
    await store.put("s3", [], { ledger: write(3) });
    const times = await Promise.all(
      ["s1", "s2", "s3"].map(async (session) => (await store.ledger(session)).lastRequestAt),
    );
    expect(times).toEqual([1, undefined, 3]);
  });

  it("hands out a ledger that stays as it was while the session writes", async () => {
    const { store } = memoryStore();
    await store.keep("s", ["a"]);
    const held = await store.ledger("s");
    await store.keep("s", ["b"]);
    await store.put("s", [{ key: "k", value: "v" }], { ledger: { at: 5, evict: [] } });
    expect([[...held.kept], held.lastRequestAt]).toEqual([["a"], undefined]);
    const now = await store.ledger("s");
    expect([[...now.kept], now.lastRequestAt]).toEqual([["a", "b"], 5]);
  });
});
