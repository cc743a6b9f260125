import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiBody } from "../support/bodies.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import {
  compactOn,
  expandOn,
  generatedOutputs,
  type Replica,
  redisSuiteSkipped,
  replica,
  whenReady,
} from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis TTL tests");

describe.skipIf(skipped)("store.ttl_seconds through the app on Redis", () => {
  let server: RedisServer;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    server = await startRedisServer();
    const overrides = { store: { ttl_seconds: 1 } };
    [a, b] = await Promise.all([replica(server.url, overrides), replica(server.url, overrides)]);
    await Promise.all([whenReady(a), whenReady(b)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await server?.close();
  });

  it("a marker expands while fresh and answers 404 on every replica once it expired", async () => {
    const compacted = await compactOn(a, openaiBody(generatedOutputs("ttl")), "ttl");
    expect(compacted.ids.length).toBeGreaterThan(0);
    const status = async () =>
      Promise.all(
        compacted.ids.flatMap((id) =>
          [a, b].map(async (r) => (await expandOn(r, id, "ttl")).status),
        ),
      );
    const fresh = await status();
    await sleep(1_200);
    const expired = await status();
    expect({ fresh, expired }).toEqual({
      fresh: fresh.map(() => 200),
      expired: fresh.map(() => 404),
    });
  });
});
