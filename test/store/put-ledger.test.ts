import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { storeSchema } from "../../src/config/schema.js";
import { StoreEntryTooLargeError } from "../../src/errors/store-error.js";
import { type Head, internDecision, type LedgerWrite } from "../../src/session/ledger.js";
import { createBackendStore, createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { redisSuiteSkipped } from "../redis/replicas.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";

const redisSkipped = redisSuiteSkipped("the Redis rows of the session ledger store tests");
let server: RedisServer | undefined;

beforeAll(async () => {
  if (!redisSkipped) server = await startRedisServer();
});
afterAll(async () => {
  await server?.close();
});

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** A fresh store of `backend` (on Redis under a key prefix of its own). */
async function open(
  backend: "memory" | "redis",
  prefix: string,
  overrides: Record<string, unknown> = {},
  make: typeof createStore = createStore,
): Promise<Store> {
  const store = make(
    storeSchema.parse({
      backend,
      max_entry_bytes: 16,
      max_kept_ids: 3,
      redis: { url: server?.url ?? "redis://127.0.0.1:1", key_prefix: prefix },
      ...overrides,
    }),
    { onError: () => undefined },
  );
  opened.push(store);
  await vi.waitFor(async () => expect(await store.ready()).toBe(true), { timeout: 5_000 });
  return store;
}

const head = (messages: number, at: number, tool = false): Head => ({
  messages,
  root: "r0",
  prints: "0a1b2c".repeat(messages),
  tool,
  outputs: [internDecision(["format", "mask"]), internDecision([]), internDecision(["dedup"])],
  calls: [],
  summary: { from: 1, to: 3 },
  at,
});
const write = (chain: string, at: number, evict: string[] = []): LedgerWrite => ({
  at,
  chain,
  head: head(5, at, chain === "c2"),
  evict,
});

const backends = (["memory", "redis"] as const).filter((b) => b === "memory" || !redisSkipped);

describe.each(backends)("session ledger in the %s store", (backend) => {
  it("an unseen session has an empty ledger", async () => {
    const store = await open(backend, "le:");
    const ledger = await store.ledger("nobody");
    expect([ledger.lastRequestAt, ledger.heads.size, ledger.kept.size]).toEqual([undefined, 0, 0]);
  });

  it("a put records its head and the request time with its entries, heads as they were written", async () => {
    const store = await open(backend, "lp:");
    await store.put("s", [{ key: "k", value: "v" }], { ledger: write("c1", 1_000) });
    await store.put("s", [], { ledger: write("c2", 2_000) });
    const ledger = await store.ledger("s");
    expect(ledger.lastRequestAt).toBe(2_000);
    expect(Object.fromEntries(ledger.heads)).toEqual({
      c1: head(5, 1_000),
      c2: head(5, 2_000, true),
    });
    expect(await store.get("s", "k")).toBe("v");
    // Sessions keep ledgers of their own.
    expect((await store.ledger("other")).heads.size).toBe(0);
  });

  it("drops the heads a write evicts", async () => {
    const store = await open(backend, "lx:");
    await store.put("s", [], { ledger: write("c1", 1) });
    await store.put("s", [], { ledger: write("c2", 2) });
    await store.put("s", [], { ledger: write("c3", 3, ["c1"]) });
    expect([...(await store.ledger("s")).heads.keys()].sort()).toEqual(["c2", "c3"]);
  });

  it("a rejected put records neither its entries nor its ledger write", async () => {
    // The backend alone: through createStore an original over max_entry_bytes goes in pieces.
    const store = await open(backend, "lr:", {}, createBackendStore);
    const put = store.put("s", [{ key: "big", value: "x".repeat(17) }], { ledger: write("c1", 1) });
    await expect(put).rejects.toBeInstanceOf(StoreEntryTooLargeError);
    const ledger = await store.ledger("s");
    expect([ledger.heads.size, ledger.lastRequestAt, await store.get("s", "big")]).toEqual([
      0,
      undefined,
      undefined,
    ]);
  });

  it("keeps at most max_kept_ids expanded ids, oldest dropped, a re-kept id made newest", async () => {
    const store = await open(backend, "lk:");
    await store.keep("s", ["a", "b", "c", "d"]);
    const first = [...(await store.ledger("s")).kept];
    await store.keep("s", ["b"]);
    await store.keep("s", ["e"]);
    // Kept ids and heads live side by side.
    await store.put("s", [], { ledger: write("c1", 1) });
    const ledger = await store.ledger("s");
    expect([first, [...ledger.kept], ledger.heads.size]).toEqual([
      ["b", "c", "d"],
      ["d", "b", "e"],
      1,
    ]);
  });

  it("with stashes off (clean mode) keeps the ledger and no entry", async () => {
    const store = await open(backend, "lc:", { enabled: false });
    expect(store.persists).toBe(false);
    await store.put("s", [{ key: "k", value: "v" }], { ledger: write("c1", 7) });
    const ledger = await store.ledger("s");
    expect([ledger.lastRequestAt, ledger.heads.size, await store.get("s", "k")]).toEqual([
      7,
      1,
      undefined,
    ]);
  });
});

describe.skipIf(redisSkipped)("session ledger on Redis", () => {
  it("keeps working after SCRIPT FLUSH: the keep script is defined again by ioredis", async () => {
    const store = await open("redis", "lf:");
    await store.keep("s", ["a"]);
    const admin = new Redis(server?.url ?? "");
    await admin.script("FLUSH");
    admin.disconnect();
    await store.keep("s", ["b"]);
    expect([...(await store.ledger("s")).kept]).toEqual(["a", "b"]);
  });

  it("ignores a head field it cannot read instead of failing the request", async () => {
    const store = await open("redis", "lg:");
    await store.put("s", [], { ledger: write("c1", 1) });
    const admin = new Redis(server?.url ?? "");
    await admin.hset("lg:l:s", "h:broken", "{not json");
    admin.disconnect();
    expect([...(await store.ledger("s")).heads.keys()]).toEqual(["c1"]);
  });
});
