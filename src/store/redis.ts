import type { ChainableCommander } from "ioredis";
import {
  type CacheObservation,
  decodeObservation,
  encodeObservation,
  type ObservationWrite,
} from "../cache/observation.js";
import type { StoreConfig } from "../config/schema.js";
import { StoreUnavailableError } from "../errors/store-error.js";
import {
  decodeHead,
  encodeHead,
  type Head,
  type LedgerWrite,
  type SessionLedger,
} from "../session/ledger.js";
import { checkPut } from "./entry-size.js";
import { createRedisClient, masters, type RedisClient } from "./redis-client.js";
import {
  GET_OWNED_LUA,
  HEAD_PREFIX,
  KEEP_LUA,
  KEPT_PREFIX,
  LAST_REQUEST_FIELD,
  LIFETIME_FIELD,
  OBSERVED_FIELD,
  ownerField,
  type RedisKeys,
  redisKeys,
  SWAP_NUMBER_LUA,
  VALUE_FIELD,
} from "./redis-keys.js";
import type { PutOptions, SharedNumberSwap, StashEntry, Store, StoreStats } from "./types.js";

export interface RedisStoreOptions {
  /** Connection problems, reported as they happen (the client reconnects by itself). */
  readonly onError?: (error: Error) => void;
}

type Reply = [error: Error | null, result: unknown];
/** The Lua commands defined on the client (see redis-keys.ts). */
interface Scripts {
  cgGetOwned(key: string, owner: string, ttlMs: string): Promise<string | null>;
  cgKeep(key: string, cap: string, ttlMs: string, ...ids: string[]): Promise<number>;
  cgSwapNumber(key: string, expected: string, next: string, ttlMs: string): Promise<unknown>;
}

/** How long a successful or failed PING answers readiness before it is asked again. */
const READY_CACHE_MS = 1_000;

/**
 * The shared store (§7) on Redis through ioredis, with the memory store's semantics across
 * replicas. Every call is one round trip: a put is one MULTI/EXEC of all its entries and its
 * ledger write, so it is acknowledged whole or not at all. Commands fail fast while Redis is
 * unreachable (no offline queue) and the client reconnects with capped backoff; readiness
 * follows the connection.
 *
 * A shared number is one key of its own, read with GET and compare-and-set by one script, so it
 * is atomic across replicas in both modes.
 *
 * In cluster mode (`store.redis.mode: cluster`) one session's keys share a hash slot
 * (redis-keys.ts), so a put is still one MULTI/EXEC on one shard; a shared number lives on
 * whichever shard its slot falls. Readiness also asks for `cluster_state:ok`, and a connection
 * problem is reported once until the cluster is ready again.
 */
export class RedisStore implements Store {
  readonly backend = "redis";
  readonly persists: boolean;
  /** The underlying client, for diagnostics. */
  readonly redis: RedisClient;
  readonly #config: StoreConfig;
  readonly #keys: RedisKeys;
  readonly #cluster: boolean;
  /** Cluster mode: a connection problem was reported and the cluster was not ready since. */
  #reported = false;
  readonly #ttlMs: number;
  #checked: { at: number; ok: Promise<boolean> } | undefined;

  constructor(config: StoreConfig, options: RedisStoreOptions = {}) {
    this.#config = config;
    this.persists = config.enabled;
    this.#cluster = config.redis.mode === "cluster";
    this.#keys = redisKeys(config.redis.key_prefix, config.redis.mode);
    this.#ttlMs = config.ttl_seconds * 1000;
    this.redis = createRedisClient(config.redis, {
      offlineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: config.timeout_ms,
      connectTimeout: Math.max(1_000, config.timeout_ms * 4),
    });
    this.redis.defineCommand("cgGetOwned", { numberOfKeys: 1, lua: GET_OWNED_LUA });
    this.redis.defineCommand("cgKeep", { numberOfKeys: 1, lua: KEEP_LUA });
    this.redis.defineCommand("cgSwapNumber", { numberOfKeys: 1, lua: SWAP_NUMBER_LUA });
    if (this.#cluster) {
      const report = (error: Error) => {
        if (this.#reported) return;
        this.#reported = true;
        options.onError?.(error);
      };
      this.redis.on("error", report);
      this.redis.on("node error", (error: Error, address: string) =>
        report(new Error(`cluster node ${address}: ${error.message}`)),
      );
    } else this.redis.on("error", (error: Error) => options.onError?.(error));
    const forget = () => {
      this.#checked = undefined;
    };
    this.redis.on("ready", forget);
    this.redis.on("close", forget);
  }

  async put(session: string, entries: readonly StashEntry[], options?: PutOptions): Promise<void> {
    const stashed = this.persists ? entries : [];
    checkPut(stashed, { maxEntryBytes: this.#config.max_entry_bytes });
    const ledger = options?.ledger;
    if (stashed.length === 0 && ledger === undefined) return;
    const transaction = this.redis.multi();
    for (const { key, value } of stashed) {
      const entryKey = this.#keys.entry(session, key);
      transaction.hset(entryKey, VALUE_FIELD, value, ownerField(session), "1");
      transaction.pexpire(entryKey, this.#ttlMs);
    }
    if (ledger) this.#writeLedger(transaction, session, ledger);
    await this.#exec("put", transaction.exec());
  }

  async get(session: string, key: string): Promise<string | undefined> {
    const ttl = String(this.#ttlMs);
    const pending = this.#scripts.cgGetOwned(
      this.#keys.entry(session, key),
      ownerField(session),
      ttl,
    );
    return (await this.#call("get", pending)) ?? undefined;
  }

  async ledger(session: string): Promise<SessionLedger> {
    const key = this.#keys.ledger(session);
    const transaction = this.redis.multi().hgetall(key).pexpire(key, this.#ttlMs);
    const [fields] = await this.#exec("ledger", transaction.exec());
    return readLedger(fields);
  }

  async observe(session: string, write: ObservationWrite): Promise<void> {
    const key = this.#keys.ledger(session);
    const fields = [OBSERVED_FIELD, encodeObservation(write.observation)];
    if (write.sessionLifetimeMs !== undefined) {
      fields.push(LIFETIME_FIELD, String(write.sessionLifetimeMs));
    }
    const transaction = this.redis
      .multi()
      .hset(key, ...fields)
      .pexpire(key, this.#ttlMs);
    await this.#exec("observe", transaction.exec());
  }

  async sharedNumber(name: string): Promise<number | undefined> {
    return readNumber(await this.#call("sharedNumber", this.redis.get(this.#keys.shared(name))));
  }

  async swapSharedNumber(
    name: string,
    expected: number | undefined,
    next: number,
    ttlMs: number,
  ): Promise<SharedNumberSwap> {
    const pending = this.#scripts.cgSwapNumber(
      this.#keys.shared(name),
      expected === undefined ? "" : String(expected),
      String(next),
      String(ttlMs),
    );
    const reply = await this.#call("swapSharedNumber", pending);
    const [swapped, held] = Array.isArray(reply) ? reply : [];
    return { swapped: swapped === 1, current: readNumber(held) };
  }

  async keep(session: string, ids: readonly string[]): Promise<void> {
    const fresh = [...new Set(ids)].slice(-this.#config.max_kept_ids);
    if (fresh.length === 0) return;
    const key = this.#keys.ledger(session);
    const cap = String(this.#config.max_kept_ids);
    await this.#call("keep", this.#scripts.cgKeep(key, cap, String(this.#ttlMs), ...fresh));
  }

  #writeLedger(transaction: ChainableCommander, session: string, write: LedgerWrite): void {
    const key = this.#keys.ledger(session);
    const fields = [LAST_REQUEST_FIELD, String(write.at)];
    if (write.chain !== undefined && write.head !== undefined) {
      fields.push(`${HEAD_PREFIX}${write.chain}`, encodeHead(write.head));
    }
    transaction.hset(key, ...fields);
    if (write.evict.length > 0) {
      transaction.hdel(key, ...write.evict.map((chain) => `${HEAD_PREFIX}${chain}`));
    }
    transaction.pexpire(key, this.#ttlMs);
  }

  get #scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  /**
   * True while connected and the last PING (at most a second old) was answered; in cluster mode
   * while a node answers CLUSTER INFO with `cluster_state:ok` (every slot served).
   */
  ready(): Promise<boolean> {
    if (this.redis.status !== "ready") return Promise.resolve(false);
    const now = Date.now();
    if (this.#checked && now - this.#checked.at < READY_CACHE_MS) return this.#checked.ok;
    const ok = (this.#cluster ? this.#clusterReady() : this.redis.ping()).then(
      (answer) => answer === "PONG",
      () => false,
    );
    this.#checked = { at: now, ok };
    return ok;
  }

  async #clusterReady(): Promise<string> {
    const info = String(await this.redis.call("CLUSTER", "INFO"));
    if (!/^cluster_state:ok\b/m.test(info)) return "cluster_state is not ok";
    this.#reported = false;
    return "PONG";
  }

  /**
   * Approximate: `entries` is DBSIZE (every key of the logical database, sticky sets included)
   * and `bytes` is Redis's used_memory (summed over the masters in cluster mode). Exact when
   * the database serves only this store.
   */
  async stats(): Promise<StoreStats> {
    const shards = await Promise.all(
      masters(this.redis).map(async (node) => {
        const [keys, info] = await this.#exec("stats", node.multi().dbsize().info("memory").exec());
        const used = /^used_memory:(\d+)/m.exec(String(info));
        return { entries: Number(keys), bytes: used ? Number(used[1]) : 0 };
      }),
    );
    return shards.reduce((sum, shard) => ({
      entries: sum.entries + shard.entries,
      bytes: sum.bytes + shard.bytes,
    }));
  }

  async close(): Promise<void> {
    if (this.redis.status === "ready") {
      const quit = this.redis.quit().catch(() => undefined);
      const bound = new Promise((resolve) => setTimeout(resolve, this.#config.timeout_ms).unref());
      await Promise.race([quit, bound]);
    }
    this.redis.disconnect();
  }

  async #call<T>(operation: string, pending: Promise<T>): Promise<T> {
    try {
      return await pending;
    } catch (error) {
      // Ask Redis again on the next readiness probe instead of trusting an older PING.
      this.#checked = undefined;
      throw new StoreUnavailableError(operation, { cause: error });
    }
  }

  /** Results of a MULTI/EXEC, rejecting if the transaction or any command in it failed. */
  async #exec(operation: string, pending: Promise<Reply[] | null>): Promise<unknown[]> {
    const replies = await this.#call(operation, pending);
    if (replies === null) {
      throw new StoreUnavailableError(operation, { cause: new Error("transaction aborted") });
    }
    const failed = replies.find(([error]) => error !== null);
    if (failed) throw new StoreUnavailableError(operation, { cause: failed[0] });
    return replies.map(([, result]) => result);
  }
}

/** A whole non-negative number of a reply, or undefined. */
function readCount(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  const number = Number(value);
  return Number.isInteger(number) && number >= 0 ? number : undefined;
}

/** The number a shared number's reply holds; undefined for none (`''`, nil) or not a number. */
function readNumber(value: unknown): number | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** The ledger a HGETALL reply holds; records that do not decode are left out. */
function readLedger(fields: unknown): SessionLedger {
  const heads = new Map<string, Head>();
  const kept: [string, number][] = [];
  let lastRequestAt: number | undefined;
  let sessionLifetime: number | undefined;
  let observed: CacheObservation | undefined;
  if (typeof fields === "object" && fields !== null) {
    for (const [field, value] of Object.entries(fields as Record<string, unknown>)) {
      if (typeof value !== "string") continue;
      if (field === LAST_REQUEST_FIELD) {
        const at = Number(value);
        if (Number.isFinite(at)) lastRequestAt = at;
      } else if (field.startsWith(HEAD_PREFIX)) {
        const head = decodeHead(value);
        if (head) heads.set(field.slice(HEAD_PREFIX.length), head);
      } else if (field.startsWith(KEPT_PREFIX)) {
        kept.push([field.slice(KEPT_PREFIX.length), Number(value)]);
      } else if (field === LIFETIME_FIELD) {
        sessionLifetime = readCount(value);
      } else if (field === OBSERVED_FIELD) {
        observed = decodeObservation(value);
      }
    }
  }
  kept.sort((a, b) => a[1] - b[1]);
  return {
    lastRequestAt,
    heads,
    kept: new Set(kept.map(([id]) => id)),
    ...(sessionLifetime === undefined
      ? {}
      : { learned: { session: sessionLifetime, deployment: undefined } }),
    ...(observed ? { observed } : {}),
  };
}
