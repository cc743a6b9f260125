import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type ConfigInput, storeSchema } from "../../src/config/schema.js";
import {
  StoreEntryTooLargeError,
  StoreError,
  StoreUnavailableError,
} from "../../src/errors/store-error.js";
import { createBackendStore, createStore } from "../../src/store/create.js";
import { RedisStore } from "../../src/store/redis.js";
import type { Store } from "../../src/store/types.js";
import { findRedisServer, type RedisServer, startRedisServer } from "../support/redis-server.js";

const installed = findRedisServer() !== undefined;
const required = process.env.CI === "true";
if (!installed && !required) {
  console.warn("redis-server is not installed: skipping the Redis store tests");
}

describe.skipIf(!installed && !required)("redis store", () => {
  let server: RedisServer;
  let admin: Redis;
  const opened: Store[] = [];
  type StoreInput = NonNullable<ConfigInput["store"]>;

  /** A store on the test server; `createStore` wraps it in the deadline like production. */
  const open = (overrides: StoreInput = {}): Store => {
    const store = createStore(config(overrides));
    opened.push(store);
    return store;
  };
  const config = (overrides: StoreInput = {}) =>
    storeSchema.parse({ backend: "redis", redis: { url: server.url }, ...overrides });
  const connected = async (store: Store) => {
    await vi.waitFor(async () => expect(await store.ready()).toBe(true), { timeout: 5_000 });
    return store;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url, { lazyConnect: true });
    admin.on("error", () => {});
    await admin.connect();
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.close();
  });
  beforeEach(async () => {
    await admin.flushdb();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it.each([
    { session: "alice", key: "k1", expected: "one" },
    { session: "alice", key: "k2", expected: "twö" },
    { session: "bob", key: "k1", expected: undefined },
    { session: "alice", key: "k3", expected: undefined },
  ])("replica B reads $key of $session stashed on replica A as $expected", async (row) => {
    const [a, b] = await Promise.all([connected(open()), connected(open())]);
    await a.put("alice", [
      { key: "k1", value: "one" },
      { key: "k2", value: "twö" },
    ]);
    expect(await b.get(row.session, row.key)).toBe(row.expected);
  });

  it("lays keys out under key_prefix: one hash per original, one ledger hash per session", async () => {
    const store = await connected(open({ redis: { url: server.url, key_prefix: "t1:" } }));
    await store.put("alice", [{ key: "k1", value: "one" }], { ledger: { at: 42, evict: [] } });
    await store.put("bob", [{ key: "k1", value: "one" }]);
    await store.keep("alice", ["a"]);
    expect({
      keys: (await admin.keys("*")).sort(),
      entry: await admin.hgetall("t1:e:k1"),
      ledger: await admin.hgetall("t1:l:alice"),
    }).toEqual({
      keys: ["t1:e:k1", "t1:l:alice"],
      entry: { v: "one", "o:alice": "1", "o:bob": "1" },
      ledger: { t: "42", "k:a": "1", kn: "1" },
    });
  });

  it("expires an unread entry after ttl_seconds", async () => {
    const store = await connected(open({ ttl_seconds: 1 }));
    await store.put("s", [{ key: "k", value: "v" }]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await store.get("s", "k")).toBeUndefined();
  });

  it.each([
    { reader: "owner", slid: true, value: "v" },
    { reader: "stranger", slid: false, value: undefined },
  ])("a read by the $reader slides the TTL: $slid", async ({ reader, slid, value }) => {
    const store = await connected(open({ ttl_seconds: 100 }));
    await store.put("owner", [{ key: "k", value: "v" }]);
    await admin.pexpire("cg:e:k", 5_000);
    const read = await store.get(reader, "k");
    const ttl = await admin.pttl("cg:e:k");
    expect([read, ttl > 5_000]).toEqual([value, slid]);
  });

  it("rejects a whole put when one entry exceeds max_entry_bytes, writing nothing", async () => {
    // The backend alone: through createStore an original over max_entry_bytes goes in pieces.
    const store = createBackendStore(config({ max_entry_bytes: 10 }));
    opened.push(store);
    await connected(store);
    const put = store.put("s", [
      { key: "small", value: "ok" },
      { key: "big", value: "ü".repeat(6) },
    ]);
    await expect(put).rejects.toBeInstanceOf(StoreEntryTooLargeError);
    await expect(put).rejects.toThrow(
      "store put: entry big is 12 bytes, more than the limit of 10",
    );
    expect(await admin.dbsize()).toBe(0);
  });

  it("keeps at most max_kept_ids per session, oldest dropped, with the ledger's TTL", async () => {
    const store = await connected(open({ max_kept_ids: 3 }));
    await store.keep("s", ["a", "b", "c", "d"]);
    const first = [...(await store.ledger("s")).kept];
    await store.keep("s", ["b"]);
    await store.keep("s", ["e"]);
    expect([first, [...(await store.ledger("s")).kept], (await admin.pttl("cg:l:s")) > 0]).toEqual([
      ["b", "c", "d"],
      ["d", "b", "e"],
      true,
    ]);
  });

  it("counts keys and server memory in stats", async () => {
    const store = await connected(open());
    await store.put("s", [
      { key: "a", value: "A" },
      { key: "b", value: "B" },
    ]);
    await store.keep("s", ["x"]);
    const stats = await store.stats();
    expect([stats.entries, stats.bytes > 0]).toEqual([3, true]);
  });

  it("sends a put of ten 5 KB entries as one transaction in one write", async () => {
    const store = new RedisStore(config());
    opened.push(store);
    await connected(store);
    const entries = Array.from({ length: 10 }, (_, index) => ({
      key: `k${index}`,
      value: String(index).repeat(5_000),
    }));
    const monitor = await admin.duplicate().monitor();
    const seen: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (!["ping", "monitor"].includes(args[0]?.toLowerCase() ?? "")) {
        seen.push(args.slice(0, 2).join(" ").toLowerCase());
      }
    });
    const write = vi.spyOn((store.redis as Redis).stream, "write");
    await store.put("s", entries);
    const writes = write.mock.calls.length;
    await vi.waitFor(() => expect(seen.at(-1)).toBe("exec"));
    monitor.disconnect();
    const perEntry = entries.flatMap(({ key }) => [`hset cg:e:${key}`, `pexpire cg:e:${key}`]);
    expect({ writes, seen }).toEqual({ writes: 1, seen: ["multi", ...perEntry, "exec"] });
  });

  it("fails fast while Redis is down and recovers by itself when it is back", async () => {
    const store = await connected(open());
    await store.put("s", [{ key: "before", value: "v" }]);
    await server.stop();
    await vi.waitFor(async () => expect(await store.ready()).toBe(false));
    const put = store.put("s", [{ key: "during", value: "v" }]);
    await expect(put).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.get("s", "before")).rejects.toBeInstanceOf(StoreUnavailableError);
    await server.start();
    await connected(store);
    await store.put("s", [{ key: "after", value: "v" }]);
    expect(await store.get("s", "after")).toBe("v");
  });

  it("bounds every call by timeout_ms when Redis stops answering", async () => {
    const store = await connected(open({ timeout_ms: 100 }));
    server.pause();
    try {
      const results = await Promise.allSettled([
        store.put("s", [{ key: "k", value: "v" }]),
        store.get("s", "k"),
        store.ledger("s"),
      ]);
      const ready = await store.ready();
      expect([
        ...results.map(
          (result) => result.status === "rejected" && result.reason instanceof StoreError,
        ),
        ready,
      ]).toEqual([true, true, true, false]);
    } finally {
      server.resume();
    }
    await connected(store);
  });
});
