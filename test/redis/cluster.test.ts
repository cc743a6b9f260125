import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/store/redis-keys.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { findRedisCli, type RedisCluster, startRedisCluster } from "../support/redis-cluster.js";
import { sharedNumberContract } from "../support/shared-number-contract.js";
import {
  compactOn,
  expandOn,
  generatedOutputs,
  type Replica,
  redisSuiteSkipped,
  replica,
  whenReady,
} from "./replicas.js";

const noCli = findRedisCli() === undefined && process.env.CI !== "true";
if (noCli) console.warn("redis-cli is not installed: skipping the Redis Cluster tests");
const skipped = redisSuiteSkipped("the Redis Cluster tests") || noCli;

const OUTPUTS = Array.from({ length: 7 }, (_, index) => logOutput(120, `cl${index}`));
const turn = (k: number) => openaiBody(OUTPUTS.slice(0, k));
const messageTexts = (text: string) =>
  (scanBody(text)?.messages ?? []).map((span) => text.slice(span.start, span.end));
/** Enough sessions that their hash tags fall on every one of the three masters. */
const SESSIONS = Array.from({ length: 12 }, (_, index) => `shard-${index}`);

describe.skipIf(skipped)("two replicas sharing one Redis Cluster (3 masters, 3 replicas)", () => {
  let cluster: RedisCluster;
  let a: Replica;
  let b: Replica;

  const onCluster = (cluster: RedisCluster) => ({
    store: { redis: { mode: "cluster" as const, nodes: [...cluster.seeds] } },
  });

  beforeAll(async () => {
    cluster = await startRedisCluster(1_000);
    const seed = cluster.seeds[0] ?? "";
    [a, b] = await Promise.all([
      replica(seed, onCluster(cluster)),
      replica(seed, onCluster(cluster)),
    ]);
    await Promise.all([whenReady(a), whenReady(b)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await cluster?.close();
  });

  /** Compacts on A and reads every marker back on B (own session, then a stranger's). */
  async function roundTrip(body: string, session: string) {
    const compacted = await compactOn(a, body, session);
    const expanded = await Promise.all(
      compacted.ids.map(async (id) => {
        const own = await expandOn(b, id, session);
        const stranger = await expandOn(b, id, `${session}-other`);
        return { status: own.status, hashed: b.idOf(own.text) === id, stranger: stranger.status };
      }),
    );
    const rehydrated = await b.app.request("/rehydrate", {
      method: "POST",
      body: compacted.text,
      headers: { "x-context-guru-session": session },
    });
    return {
      compacted,
      expanded,
      rehydrated: {
        status: rehydrated.status,
        unresolved: rehydrated.headers.get("x-context-guru-unresolved"),
        text: await rehydrated.text(),
      },
    };
  }

  it("B expands and rehydrates what A compacted, for sessions on every shard", async () => {
    const results = [];
    // One after the other: a loaded machine must not push a put past the store's deadline.
    for (const session of SESSIONS) {
      const body = openaiBody(generatedOutputs(session));
      const { compacted, expanded, rehydrated } = await roundTrip(body, session);
      results.push({
        status: compacted.status,
        offloaded: compacted.ids.length > 0,
        expanded: expanded.every((row) => row.status === 200 && row.hashed && row.stranger === 404),
        rehydrated: rehydrated.status === 200 && rehydrated.unresolved === "0",
        exact: rehydrated.text === body,
      });
    }
    expect(results).toEqual(
      SESSIONS.map(() => ({
        status: 200,
        offloaded: true,
        expanded: true,
        rehydrated: true,
        exact: true,
      })),
    );
    // Every master holds some of these sessions' keys, each session's keys on one master.
    const keys = redisKeys("cg:", "cluster");
    const owners = await Promise.all(
      SESSIONS.map(async (session) => (await cluster.masterOf(keys.ledger(session))).port),
    );
    const masters = (await cluster.masters()).map((server) => server.port);
    expect(new Set(owners)).toEqual(new Set(masters));
    const held = await Promise.all(
      (await cluster.masters()).map(async (server) => {
        const admin = new Redis(server.port, "127.0.0.1");
        const found = await admin.keys("cg:{shard-*");
        admin.disconnect();
        return found.length > 0;
      }),
    );
    expect(held).toEqual([true, true, true]);
  });

  it("a warm next turn on B keeps A's earlier messages byte-identical", async () => {
    const session = { "x-context-guru-session": "cluster-ledger" };
    const post = async (target: Replica, body: string, headers: Record<string, string>) => {
      const response = await target.app.request("/compact", {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...headers },
      });
      return { text: await response.text(), cache: response.headers.get("x-context-guru-cache") };
    };
    const cold = await post(a, turn(5), { ...session, "x-context-guru-cache": "cold" });
    const warm = await post(b, turn(6), session);
    const sent = messageTexts(cold.text);
    expect(cold.text).toContain("[older tool output masked");
    expect(warm.cache).toBe("warm");
    expect(messageTexts(warm.text).slice(0, sent.length)).toEqual(sent);
  });

  // Each number is one key on whichever shard its slot falls: these three fall on all three.
  describe("shared numbers, compare-and-set across replicas", () => {
    sharedNumberContract(() => ({ a: a.store, b: b.store }), "cluster");
  });

  it("a master killed mid-traffic: only fail-open answers, then compactions resolve across replicas again", async () => {
    const victim = await cluster.masterOf(redisKeys("cg:", "cluster").ledger("shard-0"));
    const statuses: number[] = [];
    const killedAt = Date.now();
    let killed = false;
    let resolvedAt: number | undefined;
    // Traffic on every shard's sessions, from both replicas, until a new compaction on a
    // session of the killed master's slots resolves on the other replica (bounded).
    for (let round = 0; round < 400 && resolvedAt === undefined; round++) {
      const batch = await Promise.all(
        SESSIONS.slice(0, 6).map((session, index) =>
          compactOn(
            index % 2 === 0 ? a : b,
            openaiBody(generatedOutputs(`f${round}-${session}`)),
            session,
          ),
        ),
      );
      statuses.push(...batch.map((response) => response.status));
      if (!killed) {
        await victim.stop();
        killed = true;
        continue;
      }
      const probe = await compactOn(a, openaiBody(generatedOutputs(`probe-${round}`)), "shard-0");
      statuses.push(probe.status);
      const expanded = await Promise.all(probe.ids.map((id) => expandOn(b, id, "shard-0")));
      if (probe.ids.length > 0 && expanded.every((response) => response.status === 200)) {
        resolvedAt = Date.now();
      }
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(resolvedAt).toBeDefined();
    console.info(
      `failover window: ${(resolvedAt ?? 0) - killedAt} ms from master kill to a resolve`,
    );
    await cluster.healthy();
    await Promise.all([whenReady(a, 30_000), whenReady(b, 30_000)]);
    // Every shard serves again: A compacts, B expands, on all sessions.
    const after = [];
    for (const session of SESSIONS) {
      const body = openaiBody(generatedOutputs(`after-${session}`));
      const compacted = await compactOn(a, body, session);
      const expanded = await Promise.all(compacted.ids.map((id) => expandOn(b, id, session)));
      after.push(compacted.ids.length > 0 && expanded.every((response) => response.status === 200));
    }
    expect(after).toEqual(SESSIONS.map(() => true));
  }, 120_000);
});
