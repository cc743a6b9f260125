import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { findRedisServer, type RedisServer, startRedisServer } from "./redis-server.js";

const run = promisify(execFile);

/** Absolute path of `redis-cli` on PATH, or undefined when it is not installed. */
export function findRedisCli(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "redis-cli");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** A throwaway Redis Cluster on loopback: 3 masters, 3 replicas, no persistence. */
export interface RedisCluster {
  readonly servers: readonly RedisServer[];
  /** Seed URLs of every node, as `store.redis.nodes` takes them. */
  readonly seeds: readonly string[];
  /** The running server that is the master of `key`'s hash slot now. */
  masterOf(key: string): Promise<RedisServer>;
  /** The running servers that are masters of at least one slot now. */
  masters(): Promise<RedisServer[]>;
  /** Resolves once every running node reports `cluster_state:ok` (polled, at most `timeoutMs`). */
  healthy(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Six `redis-server --cluster-enabled yes` processes joined by `redis-cli --cluster create
 * --cluster-replicas 1`, ready once every replica follows its master. `nodeTimeoutMs` is
 * `cluster-node-timeout`: how long a master may be silent before its replica takes over.
 */
export async function startRedisCluster(nodeTimeoutMs = 1_000): Promise<RedisCluster> {
  const cli = findRedisCli();
  const binary = findRedisServer();
  if (!binary || !cli) throw new Error("redis-server and redis-cli are needed for a cluster");
  const args = ["--cluster-enabled", "yes", "--cluster-node-timeout", String(nodeTimeoutMs)];
  const servers = await Promise.all(
    Array.from({ length: 6 }, () => startRedisServer(binary, { args })),
  );
  const admins = new Map(
    servers.map((server) => [
      server,
      new Redis(server.port, "127.0.0.1", {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      }),
    ]),
  );
  // A stopped node refuses connections; that is expected here, not an unhandled error.
  for (const admin of admins.values()) admin.on("error", () => undefined);
  const running = async () => {
    const up: [RedisServer, Redis][] = [];
    for (const [server, admin] of admins) {
      if (await answers(admin)) up.push([server, admin]);
    }
    return up;
  };
  const close = async () => {
    for (const admin of admins.values()) admin.disconnect();
    await Promise.all(servers.map((server) => server.close()));
  };
  const healthy = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const up = await running();
      const states = await Promise.all(
        up.map(([, admin]) => admin.call("CLUSTER", "INFO").then(String, () => "")),
      );
      if (states.every((info) => /^cluster_state:ok/m.test(info))) return;
      await sleep(50);
    }
    throw new Error(`the cluster did not reach cluster_state:ok within ${timeoutMs} ms`);
  };
  const slots = async (): Promise<[number, number, number][]> => {
    const [[, admin] = []] = await running();
    if (!admin) throw new Error("no cluster node is running");
    const ranges = (await admin.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
    return ranges.map(([from, to, [, port]]) => [from, to, port]);
  };
  const byPort = (port: number) => {
    const server = servers.find((candidate) => candidate.port === port);
    if (!server) throw new Error(`no server on port ${port}`);
    return server;
  };

  try {
    const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
    await run(cli, [
      "--cluster",
      "create",
      ...addresses,
      "--cluster-replicas",
      "1",
      "--cluster-yes",
    ]);
    await healthy();
    await replicasInSync([...admins.values()]);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    servers,
    seeds: servers.map((server) => server.url),
    masterOf: async (key) => {
      const [[, admin] = []] = await running();
      const slot = Number(await admin?.call("CLUSTER", "KEYSLOT", key));
      const range = (await slots()).find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`slot ${slot} is not served`);
      return byPort(range[2]);
    },
    masters: async () => [...new Set((await slots()).map(([, , port]) => byPort(port)))],
    healthy,
    close,
  };
}

async function answers(admin: Redis): Promise<boolean> {
  if (admin.status === "end" || admin.status === "wait") {
    await admin.connect().catch(() => undefined);
  }
  return admin.ping().then(
    () => true,
    () => false,
  );
}

/** Waits (bounded) until each of the three replicas reports its link to the master up. */
async function replicasInSync(admins: Redis[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const infos = await Promise.all(admins.map((admin) => admin.info("replication")));
    const up = infos.filter((info) => /^master_link_status:up/m.test(info)).length;
    if (up === 3) return;
    await sleep(50);
  }
  throw new Error(`the cluster's replicas did not sync within ${timeoutMs} ms`);
}
