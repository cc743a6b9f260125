import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { ConfigError } from "../../src/errors/config-error.js";
import { sharedHashKeyName } from "../../src/hash-key/redis.js";
import { type HashKeyHandle, resolveHashKey } from "../../src/hash-key/resolve.js";
import { openaiBody } from "../support/bodies.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import {
  compactOn,
  expandOn,
  generatedOutputs,
  redisSuiteSkipped,
  replicaPair,
} from "./replicas.js";

const skipped = redisSuiteSkipped("the shared marker key tests");
const NAME = sharedHashKeyName("cg:");

/** The store config of a replica on `url` (defaults, Redis backend). */
const storeOn = (url: string, store: Record<string, unknown> = {}) =>
  parseConfig({ store: { backend: "redis", redis: { url }, ...store } }).store;

describe.skipIf(skipped)("replicas on one Redis share one marker key (§6)", () => {
  let server: RedisServer;
  let raw: Redis;
  const handles: HashKeyHandle[] = [];
  const resolve = async (...args: Parameters<typeof resolveHashKey>) => {
    const handle = await resolveHashKey(...args);
    handles.push(handle);
    return handle;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    raw = new Redis(server.url, { maxRetriesPerRequest: null });
    raw.on("error", () => undefined);
  });
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close()));
    await raw.flushall();
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.close();
  });

  it("the first replica writes a random key with SET NX and every later one reads it", async () => {
    const [one, two, three] = await Promise.all([
      resolve(storeOn(server.url)),
      resolve(storeOn(server.url)),
      resolve(storeOn(server.url)),
    ]);
    expect(one?.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([two?.key, three?.key]).toEqual([one?.key, one?.key]);
    expect(await raw.get(NAME)).toBe(one?.key);
    expect(await raw.ttl(NAME)).toBe(-1);
    // Another deployment in the same Redis (its own prefix) gets a key of its own.
    const other = await resolve(
      storeOn(server.url, { redis: { url: server.url, key_prefix: "b:" } }),
    );
    expect(other.key).not.toBe(one?.key);
    expect(await raw.get("b:hash-key")).toBe(other.key);
  });

  it("a configured store.hash_key wins and nothing is written to Redis", async () => {
    const handle = await resolve(storeOn(server.url, { hash_key: "from-a-secret-0123456789" }));
    expect(handle.key).toBe("from-a-secret-0123456789");
    expect(await raw.exists(NAME)).toBe(0);
  });

  it("without Redis, memory stores and clean mode each make a random key", async () => {
    const memory = parseConfig({}).store;
    const clean = parseConfig({ store: { enabled: false, backend: "redis" } }).store;
    const keys = await Promise.all([resolve(memory), resolve(memory), resolve(clean)]);
    expect(new Set(keys.map((handle) => handle.key)).size).toBe(3);
    expect(await raw.exists(NAME)).toBe(0);
  });

  it("refuses a value in Redis that is too short to be a key, naming store.hash_key", async () => {
    await raw.set(NAME, "short");
    const failed = resolveHashKey(storeOn(server.url));
    await expect(failed).rejects.toBeInstanceOf(ConfigError);
    await expect(failed).rejects.toThrow(
      `config store.hash_key: not set, and the shared key ${NAME} could not be read from Redis`,
    );
  });

  it("start-up waits while Redis is unreachable and goes on once it answers", async () => {
    await server.stop();
    const waits: string[] = [];
    const pending = resolve(storeOn(server.url), { onWait: (error) => waits.push(error.message) });
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(waits.length).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    expect(settled).toBe(false);
    await server.start();
    const handle = await pending;
    expect(await raw.get(NAME)).toBe(handle.key);
  });

  it("a Redis that came back empty gets the running replicas' key again", async () => {
    const running = await resolve(storeOn(server.url));
    await server.stop();
    await server.start();
    await vi.waitFor(async () => expect(await raw.get(NAME)).toBe(running.key), {
      timeout: 10_000,
      interval: 50,
    });
    const started = await resolve(storeOn(server.url));
    expect(started.key).toBe(running.key);
  });

  it("closes within half a second while Redis does not answer, so shutdown never hangs", async () => {
    const handle = await resolveHashKey(storeOn(server.url));
    server.pause();
    try {
      const started = Date.now();
      await handle.close();
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      server.resume();
    }
  });

  it("reports a replica whose key Redis no longer holds", async () => {
    const mismatches: number[] = [];
    await resolve(storeOn(server.url), { onMismatch: () => mismatches.push(Date.now()) });
    await raw.set(NAME, "another-key-made-elsewhere-0123");
    // Drop every other connection: the replica reconnects and checks its key.
    await raw.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    await vi.waitFor(() => expect(mismatches.length).toBe(1), { timeout: 10_000 });
  });
});

describe.skipIf(skipped)("two app instances on one Redis with no store.hash_key", () => {
  const pair = replicaPair();

  it("write the same ids for the same content, so either replica's output is byte-identical", async () => {
    const body = openaiBody(generatedOutputs("shared-key"));
    const [onA, onB] = [await compactOn(pair.a, body, "one"), await compactOn(pair.b, body, "two")];
    expect(onA.ids.length).toBeGreaterThan(0);
    expect(onB.ids).toEqual(onA.ids);
    expect(onB.text).toBe(onA.text);
  });

  it("resolve each other's markers and reformat records", async () => {
    const body = openaiBody(generatedOutputs("cross"));
    const compacted = await compactOn(pair.a, body, "cross");
    const expanded = await Promise.all(compacted.ids.map((id) => expandOn(pair.b, id, "cross")));
    expect(expanded.map((response) => [response.status, pair.b.idOf(response.text)])).toEqual(
      compacted.ids.map((id) => [200, id]),
    );
    const rehydrated = await pair.b.app.request("/rehydrate", {
      method: "POST",
      body: compacted.text,
      headers: { "x-context-guru-session": "cross" },
    });
    expect(rehydrated.headers.get("x-context-guru-unresolved")).toBe("0");
    expect(await rehydrated.text()).toBe(body);
  });
});
