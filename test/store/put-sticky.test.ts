import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { storeSchema } from "../../src/config/schema.js";
import { StoreEntryTooLargeError } from "../../src/errors/store-error.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { redisSuiteSkipped } from "../redis/replicas.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";

const redisSkipped = redisSuiteSkipped("the Redis rows of the put-with-sticky tests");
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
async function open(backend: "memory" | "redis", prefix: string): Promise<Store> {
  const store = createStore(
    storeSchema.parse({
      backend,
      max_entry_bytes: 16,
      max_sticky_ids: 3,
      redis: { url: server?.url ?? "redis://127.0.0.1:1", key_prefix: prefix },
    }),
    { onError: () => undefined },
  );
  opened.push(store);
  await vi.waitFor(async () => expect(await store.ready()).toBe(true), { timeout: 5_000 });
  return store;
}

const backends = (["memory", "redis"] as const).filter((b) => b === "memory" || !redisSkipped);

describe.each(backends)("put with sticky ids (%s)", (backend) => {
  it.each([
    { sticky: ["a", "b"], before: [], expected: ["a", "b"] },
    { sticky: ["c", "d"], before: ["a", "b"], expected: ["b", "c", "d"] },
    { sticky: ["a"], before: ["a", "b"], expected: ["b", "a"] },
    { sticky: [], before: ["a"], expected: ["a"] },
  ])("adds $sticky after $before → $expected, with the entries", async (row) => {
    const store = await open(backend, `ps${row.before.length}${row.sticky.join("")}:`);
    await store.addSticky("s", row.before);
    await store.put("s", [{ key: "k", value: "v" }], { sticky: row.sticky });
    expect([[...(await store.sticky("s"))], await store.get("s", "k")]).toEqual([
      row.expected,
      "v",
    ]);
  });

  it("records sticky ids of a put without entries", async () => {
    const store = await open(backend, "pe:");
    await store.put("s", [], { sticky: ["x"] });
    expect([...(await store.sticky("s"))]).toEqual(["x"]);
  });

  it("a rejected put records neither its entries nor its sticky ids", async () => {
    const store = await open(backend, "pr:");
    const put = store.put("s", [{ key: "big", value: "x".repeat(17) }], { sticky: ["x"] });
    await expect(put).rejects.toBeInstanceOf(StoreEntryTooLargeError);
    expect([[...(await store.sticky("s"))], await store.get("s", "big")]).toEqual([[], undefined]);
  });
});

describe.skipIf(redisSkipped)("put with sticky ids on Redis after SCRIPT FLUSH", () => {
  it("keeps working: the sticky script is sent with the put, not looked up by digest", async () => {
    const store = await open("redis", "pf:");
    await store.put("s", [{ key: "k0", value: "v" }], { sticky: ["a"] });
    const admin = new Redis(server?.url ?? "");
    await admin.script("FLUSH");
    admin.disconnect();
    await store.put("s", [{ key: "k1", value: "v" }], { sticky: ["b"] });
    expect([[...(await store.sticky("s"))], await store.get("s", "k1")]).toEqual([["a", "b"], "v"]);
  });
});
