import { createRequire } from "node:module";
import type { Cluster, ClusterNode, Redis } from "ioredis";
import type { StoreConfig } from "../config/schema.js";

type RedisConfig = StoreConfig["redis"];

/** One client of the configured Redis: a plain connection, or ioredis' cluster client. */
export type RedisClient = Redis | Cluster;

/** Connection behaviour shared by both modes (timeouts, offline queue, retries). */
export interface RedisClientOptions {
  /** Queue commands while disconnected instead of failing them at once. */
  readonly offlineQueue: boolean;
  /** Tries per command before it fails (null: until it succeeds). */
  readonly maxRetriesPerRequest: number | null;
  readonly commandTimeout?: number;
  readonly connectTimeout?: number;
}

/** Reconnect backoff of both modes: 100 ms doubling up to 2 s. */
export function reconnectDelay(times: number): number {
  return Math.min(100 * 2 ** (times - 1), 2_000);
}

/**
 * ioredis, loaded by the first Redis client the process makes, never by a process without one.
 * Loading it declares a subclass of `String` (its RESP3 verbatim strings), after which
 * `String.prototype` has slow properties for the rest of the process and every string method
 * called as a method is a property lookup (character loops read through src/text/char-code.ts,
 * which stays fast either way). A deployment on the memory store, or in clean mode, never pays.
 */
let ioredis: typeof import("ioredis") | undefined;
function loadIoredis(): typeof import("ioredis") {
  ioredis ??= createRequire(import.meta.url)("ioredis") as typeof import("ioredis");
  return ioredis;
}

/**
 * The client `store.redis` asks for: in `standalone` mode one connection to `url`, in `cluster`
 * mode ioredis' Cluster over the `nodes` seeds, which follows the slot map by itself (MOVED and
 * ASK redirections, replica promotion after a failover). Cluster credentials and TLS come from the
 * first seed's URL and apply to every node, as managed clusters expect.
 */
export function createRedisClient(config: RedisConfig, options: RedisClientOptions): RedisClient {
  const { Cluster, Redis } = loadIoredis();
  const common = {
    maxRetriesPerRequest: options.maxRetriesPerRequest,
    ...(options.commandTimeout === undefined ? {} : { commandTimeout: options.commandTimeout }),
    ...(options.connectTimeout === undefined ? {} : { connectTimeout: options.connectTimeout }),
  };
  if (config.mode === "standalone") {
    return new Redis(config.url, {
      ...common,
      lazyConnect: false,
      enableOfflineQueue: options.offlineQueue,
      retryStrategy: reconnectDelay,
    });
  }
  const seeds = config.nodes.map(parseSeed);
  const first = seeds[0];
  return new Cluster(
    seeds.map(({ node }) => node),
    {
      enableOfflineQueue: options.offlineQueue,
      clusterRetryStrategy: reconnectDelay,
      // A command that meets a failover or a down cluster waits this long before its retry; the
      // store's deadline still bounds the whole call.
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      slotsRefreshTimeout: Math.max(1_000, options.connectTimeout ?? 1_000),
      // TLS certificates of managed clusters name the host, not the address it resolves to.
      ...(first?.tls ? { dnsLookup: (address, done) => done(null, address) } : {}),
      redisOptions: {
        ...common,
        ...(first?.username ? { username: first.username } : {}),
        ...(first?.password ? { password: first.password } : {}),
        ...(first?.tls ? { tls: {} } : {}),
      },
    },
  );
}

interface Seed {
  readonly node: ClusterNode & { host: string; port: number };
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}

/** `redis://[user][:password@]host:port` or `rediss://…` as a cluster seed. */
export function parseSeed(text: string): Seed {
  const url = new URL(text);
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new Error(`store.redis.nodes: ${url.protocol} is not redis: or rediss:`);
  }
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return {
    node: { host: url.hostname, port: url.port === "" ? 6379 : Number(url.port) },
    ...(username === "" ? {} : { username }),
    ...(password === "" ? {} : { password }),
    tls: url.protocol === "rediss:",
  };
}

/** The masters of a cluster client (the one connection in standalone mode). */
export function masters(client: RedisClient): Redis[] {
  return client instanceof loadIoredis().Cluster ? client.nodes("master") : [client];
}
