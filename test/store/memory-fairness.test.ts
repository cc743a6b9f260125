import { describe, expect, it } from "vitest";
import { type StoreConfig, storeSchema } from "../../src/config/schema.js";
import { rawMarkerIds } from "../../src/expand/markers.js";
import { MemoryStore } from "../../src/store/memory.js";
import { chargeOf, SessionQuota, sessionLimits } from "../../src/store/session-quota.js";
import { postCompact, testApp } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";

/** One stash: key `session:index` (one length for all), a value of `bytes` bytes. */
const entry = (session: string, index: number, bytes = 1000) => {
  const key = `${session}:${String(index).padStart(3, "0")}`;
  return { key, value: `${key}:`.padEnd(bytes, "x") };
};

function memoryStore(input: Partial<StoreConfig>) {
  return new MemoryStore(storeSchema.parse({ ttl_seconds: 60, ...input }));
}

async function readable(store: MemoryStore, session: string, from: number, to: number) {
  const reads = [];
  for (let index = from; index < to; index++) {
    reads.push((await store.get(session, entry(session, index).key)) !== undefined);
  }
  return reads;
}

describe("memory store: a session is held to its quota (store.max_session_bytes)", () => {
  // Room for 80 entries of 1000 bytes; each session may hold 10 of them.
  const perEntry = chargeOf("a", entry("a", 0).key, entry("a", 0).value);
  const limits = { max_bytes: 80 * perEntry, max_session_bytes: 10 * perEntry };

  it("one session past its quota evicts its own least recently used originals first", async () => {
    const store = memoryStore(limits);
    for (let index = 0; index < 10; index++) await store.put("a", [entry("a", index)]);
    await store.get("a", entry("a", 0).key);
    for (let index = 10; index < 14; index++) await store.put("a", [entry("a", index)]);
    expect(await readable(store, "a", 0, 14)).toEqual([
      true, // read again, so kept
      ...[1, 2, 3, 4].map(() => false),
      ...Array.from({ length: 9 }, () => true),
    ]);
    expect((await store.stats()).entries).toBe(10);
  });

  it("seven other sessions at their full quota cannot evict the first session's originals", async () => {
    const store = memoryStore(limits);
    for (let index = 0; index < 10; index++) await store.put("a", [entry("a", index)]);
    for (const session of ["b", "c", "d", "e", "f", "g", "h"]) {
      for (let index = 0; index < 200; index++) await store.put(session, [entry(session, index)]);
    }
    expect(await readable(store, "a", 0, 10)).toEqual(Array.from({ length: 10 }, () => true));
    expect(await readable(store, "h", 190, 200)).toEqual(Array.from({ length: 10 }, () => true));
    expect(await readable(store, "h", 0, 190)).not.toContain(true);
    const stats = await store.stats();
    expect(stats.entries).toBe(80);
    expect(stats.bytes).toBeLessThanOrEqual(limits.max_bytes);
  });

  it("a shared original stays for its other owners when one owner's quota lets it go", async () => {
    const store = memoryStore(limits);
    const shared = entry("shared", 0);
    await store.put("a", [shared]);
    await store.put("b", [shared]);
    for (let index = 0; index < 10; index++) await store.put("a", [entry("a", index)]);
    expect([await store.get("a", shared.key), await store.get("b", shared.key)]).toEqual([
      undefined,
      shared.value,
    ]);
  });

  it("refuses a put larger than one session's quota, keeping none of it", async () => {
    const store = memoryStore(limits);
    const put = store.put(
      "a",
      Array.from({ length: 11 }, (_, index) => entry("a", index)),
    );
    await expect(put).rejects.toThrow("more than store.max_session_bytes");
    expect((await store.stats()).entries).toBe(0);
  });

  it("stops charging for what was evicted, expired or replaced, so accounts stay bounded", async () => {
    let now = 0;
    const config = storeSchema.parse({ ttl_seconds: 10, max_entries: 4, max_bytes: 80 * perEntry });
    const quota = new SessionQuota(
      sessionLimits({ ...config, max_session_bytes: config.max_bytes }),
    );
    const store = new MemoryStore(config, { clock: () => now, quota });
    for (let index = 0; index < 3; index++) await store.put("a", [entry("a", index)]);
    // b's puts push a's oldest two out through the global bound (max_entries 4).
    for (let index = 0; index < 3; index++) await store.put("b", [entry("b", index)]);
    expect([quota.usage("a").entries, quota.usage("b").entries]).toEqual([1, 3]);
    // Past the TTL, expired entries are dropped (at the latest when stats purge them), and
    // their charges with them.
    now += 10_001;
    expect(await store.get("a", entry("a", 2).key)).toBeUndefined();
    expect(await store.stats()).toEqual({ entries: 0, bytes: 0 });
    expect([quota.usage("a"), quota.usage("b")]).toEqual([
      { bytes: 0, entries: 0 },
      { bytes: 0, entries: 0 },
    ]);
    // A replacement that drops an owner (max_sessions) stops charging that owner.
    const capped = storeSchema.parse({ max_sessions: 1 });
    const cappedQuota = new SessionQuota(sessionLimits(capped));
    const shared = new MemoryStore(capped, { quota: cappedQuota });
    await shared.put("a", [entry("x", 0)]);
    await shared.put("b", [entry("x", 0)]);
    expect([cappedQuota.usage("a").entries, cappedQuota.usage("b").entries]).toEqual([0, 1]);
  });
});

describe("through /compact: one session's flood does not turn another's markers into misses", () => {
  /** A body of `count` distinct tool outputs, every one of which mask stashes. */
  const body = (tag: string, count: number) =>
    openaiBody(Array.from({ length: count }, (_, index) => logOutput(12, `${tag}-${index}`)));

  it("with max_entries 1000, twenty-two requests of 50 stashes of session B leave A's markers", async () => {
    const { app, store } = testApp({
      pipeline: ["mask"],
      components: { mask: { keep_recent: 0, min_tokens: 0 } },
      store: { max_entries: 1000 },
    });
    const compact = async (session: string, text: string) => {
      const response = await postCompact(app, text, {
        headers: { "x-context-guru-session": session, "x-context-guru-cache": "cold" },
      });
      // Markers in the messages (the expand tool's own description quotes the syntax).
      const { messages } = JSON.parse(await response.text()) as { messages: unknown };
      return [...new Set(rawMarkerIds(JSON.stringify(messages)))];
    };
    const expand = async (session: string, ids: readonly string[]) =>
      Promise.all(
        ids.map(
          async (id) =>
            (
              await app.request(`/expand?id=${id}`, {
                headers: { "x-context-guru-session": session },
              })
            ).status,
        ),
      );

    const alice = await compact("alice", body("alice", 5));
    expect(alice).toHaveLength(5);
    const bob: string[][] = [];
    // Each stash is two entries: the original, and the record of the conversation it was
    // written into (session/records.ts).
    for (let round = 0; round < 22; round++)
      bob.push(await compact("bob", body(`bob${round}`, 50)));
    expect(bob.every((ids) => ids.length === 50)).toBe(true);

    expect(await expand("alice", alice)).toEqual(alice.map(() => 200));
    // Bob keeps his own newest originals, within his share (1000 / 8 = 125 entries).
    expect(await expand("bob", bob[21] ?? [])).toEqual((bob[21] ?? []).map(() => 200));
    expect(await expand("bob", bob[0] ?? [])).toEqual((bob[0] ?? []).map(() => 404));
    expect((await store.stats()).entries).toBe(125 + 10);
  });
});
