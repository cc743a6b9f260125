import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { storeSchema } from "../../src/config/schema.js";
import { StoreError } from "../../src/errors/store-error.js";
import { createStore } from "../../src/store/create.js";
import { MemoryStore } from "../../src/store/memory.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { UPDATE_ATTEMPTS, updateSharedNumber } from "../../src/store/shared-number.js";
import type { Store } from "../../src/store/types.js";
import { redisSuiteSkipped } from "../redis/replicas.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { sharedNumberContract } from "../support/shared-number-contract.js";

/**
 * The store's shared numbers: a compare-and-set primitive, atomic across replicas, and the
 * read-modify-write built on it (src/store/shared-number.ts) that keeps every update.
 */
describe("shared numbers on the memory store", () => {
  const clock = { now: 1_000 };
  const store = new MemoryStore(storeSchema.parse({}), { clock: () => clock.now });
  sharedNumberContract(() => ({ a: store, b: store }));

  it("a number expires ttlMs after it was last set", async () => {
    await store.swapSharedNumber("ttl", undefined, 40, 500);
    clock.now += 499;
    const before = await store.sharedNumber("ttl");
    clock.now += 1;
    expect([before, await store.sharedNumber("ttl")]).toEqual([40, undefined]);
  });
});

describe("updateSharedNumber", () => {
  it("reports an update that lost every race rather than retrying without end", async () => {
    let calls = 0;
    // Another writer gets in before every try.
    const contended: Pick<Store, "swapSharedNumber"> = {
      swapSharedNumber: async () => ({ swapped: false, current: ++calls }),
    };
    const update = updateSharedNumber(contended, "busy", { expected: 0, ttlMs: 1 }, (n) => n ?? 0);
    await expect(update).rejects.toBeInstanceOf(StoreError);
    expect(calls).toBe(UPDATE_ATTEMPTS);
  });
});

const skipped = redisSuiteSkipped("the Redis shared-number tests");

describe.skipIf(skipped)("shared numbers on Redis, two replicas on one server", () => {
  let server: RedisServer;
  let admin: Redis;
  const stores: Store[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
    const config = storeSchema.parse({ backend: "redis", redis: { url: server.url } });
    stores.push(createStore(config), createStore(config));
    for (const store of stores) {
      await vi.waitFor(async () => expect(await store.ready()).toBe(true), { timeout: 5_000 });
    }
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    admin?.disconnect();
    await server?.close();
  });

  sharedNumberContract(() => ({ a: stores[0] as Store, b: stores[1] as Store }));

  it("keeps a number under its own key for ttlMs, and reads a value that is no number as unset", async () => {
    const [a] = stores as [Store];
    const key = redisKeys("cg:").shared("kept");
    await a.swapSharedNumber("kept", undefined, 7, 30_000);
    const ttl = await admin.pttl(key);
    await admin.set(key, "not a number");
    const unreadable = await a.sharedNumber("kept");
    const swap = await a.swapSharedNumber("kept", undefined, 8, 30_000);
    expect({
      key,
      kept: ttl > 29_000 && ttl <= 30_000,
      unreadable,
      swap,
      value: await admin.get(key),
    }).toEqual({
      key: "cg:n:kept",
      kept: true,
      unreadable: undefined,
      swap: { swapped: true, current: 8 },
      value: "8",
    });
  });
});
