import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { replayTurns } from "../../bench/turns.js";
import { Compactor } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { agentBodies, hasSharedCorpus } from "../support/shared-corpus.js";
import { redisSuiteSkipped } from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis priced-break test") || !hasSharedCorpus;

describe.skipIf(skipped)("priced breaks across two instances on one Redis", () => {
  let server: RedisServer;
  const stores: Store[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close?.()));
    await server?.close();
  });

  it("a session whose turns alternate between instances breaks where one instance would", async () => {
    const config = parseConfig({ store: { backend: "redis", redis: { url: server.url } } });
    let now = 1_000_000;
    const instances = [0, 1].map(() => {
      const store = createStore(config.store);
      stores.push(store);
      return new Compactor({
        config,
        store,
        registry: components,
        hashKey: "priced-break-redis-key",
        clock: () => now,
      });
    });
    for (const store of stores) {
      await vi.waitFor(
        async () => {
          if (!(await store.ready())) throw new Error("Redis not ready");
        },
        { timeout: 10_000, interval: 20 },
      );
    }
    const body = agentBodies().find((entry) => entry.file === "s0-t049-openai.json");
    if (!body) throw new Error("s0-t049-openai.json is not in the corpus");
    const reasons: string[] = [];
    for (const [index, text] of replayTurns(body.provider, body.body).entries()) {
      const result = await (instances[index % 2] as Compactor).compact(text, { session: "r" });
      if (result.cache.reason !== "recent") reasons.push(`${index}:${result.cache.reason}`);
      now += 20_000;
    }
    // As in memory (test/cache/priced-break.test.ts): the history travels with the ledger.
    expect(reasons).toEqual(["0:unknown", "24:priced", "37:priced"]);
  }, 120_000);
});
