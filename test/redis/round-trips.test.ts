import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { withDeadline } from "../../src/store/deadline.js";
import { RedisStore } from "../../src/store/redis.js";
import { openaiBody } from "../support/bodies.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { generatedOutputs, redisSuiteSkipped } from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis round-trip tests");

describe.skipIf(skipped)("store round trips of one /compact on Redis", () => {
  let server: RedisServer;
  let admin: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.close();
  });

  it("reads the session ledger and the deployment's lifetime side by side, then writes stashes and the ledger's head in one MULTI/EXEC: two round trips", async () => {
    const config = parseConfig({ store: { backend: "redis", redis: { url: server.url } } });
    const redis = new RedisStore(config.store, { onError: () => undefined });
    await vi.waitFor(async () => expect(await redis.ready()).toBe(true), { timeout: 5_000 });
    const app = createApp({ config, store: withDeadline(redis, config.store.timeout_ms) });

    const monitor = await admin.duplicate().monitor();
    const seen: string[] = [];
    monitor.on("monitor", (_time: string, args: string[], source: string) => {
      const name = args[0]?.toLowerCase() ?? "";
      if (source !== "lua" && !["ping", "monitor"].includes(name)) seen.push(name);
    });
    const { stream } = redis.redis as Redis;
    const write = vi.spyOn(stream, "write");
    const answer = vi.fn();
    stream.on("data", answer);
    const response = await app.request("/compact", {
      method: "POST",
      body: openaiBody(generatedOutputs("trips")),
      headers: { "x-context-guru-session": "trips", "x-context-guru-cache": "cold" },
    });
    await response.text();
    stream.off("data", answer);
    // What crossed the socket in order, a run of writes or of answers as one: a round trip is
    // writes sent together and then answered.
    const traffic = [
      ...write.mock.invocationCallOrder.map((order) => ({ order, kind: "write" })),
      ...answer.mock.invocationCallOrder.map((order) => ({ order, kind: "answer" })),
    ]
      .sort((a, b) => a.order - b.order)
      .map(({ kind }) => kind)
      .filter((kind, index, all) => kind !== all[index - 1]);
    await vi.waitFor(() => expect(seen.filter((name) => name === "exec")).toHaveLength(2));
    const commands = [...seen];
    monitor.disconnect();
    const ledger = await redis.ledger("trips");
    await redis.close();

    // Every hset but the ledger's one is a stash, each followed by its pexpire.
    const stashed = commands.filter((name) => name === "hset").length - 1;
    expect({ traffic, commands, heads: ledger.heads.size }).toEqual({
      traffic: ["write", "answer", "write", "answer"],
      commands: [
        // The ledger, and the deployment's learned cache lifetime read beside it.
        ...["multi", "hgetall", "pexpire", "exec", "get"],
        "multi",
        ...Array.from({ length: stashed }, () => ["hset", "pexpire"]).flat(),
        "hset",
        "pexpire",
        "exec",
      ],
      heads: 1,
    });
    expect(stashed).toBeGreaterThan(0);
  });
});
