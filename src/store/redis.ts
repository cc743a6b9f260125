import { Redis } from "ioredis";
import type { StoreConfig } from "../config/schema.js";
import { StoreUnavailableError } from "../errors/store-error.js";
import { checkPut } from "./entry-size.js";
import { ADD_STICKY_LUA, GET_OWNED_LUA, ownerField, redisKeys, VALUE_FIELD } from "./redis-keys.js";
import type { PutOptions, StashEntry, Store, StoreStats } from "./types.js";

export interface RedisStoreOptions {
  /** Connection problems, reported as they happen (the client reconnects by itself). */
  readonly onError?: (error: Error) => void;
}

type Reply = [error: Error | null, result: unknown];
/** The Lua commands defined on the client (see redis-keys.ts). */
interface Scripts {
  cgGetOwned(key: string, owner: string, ttlMs: string): Promise<string | null>;
  cgAddSticky(key: string, cap: string, ttlMs: string, ...ids: string[]): Promise<number>;
}

/** How long a successful or failed PING answers readiness before it is asked again. */
const READY_CACHE_MS = 1_000;

/**
 * The shared store (§7) on Redis through ioredis, with the memory store's semantics across
 * replicas. Every call is one round trip: a put is one MULTI/EXEC of all its entries and its
 * sticky ids, so it is acknowledged whole or not at all. Commands fail fast while Redis is
 * unreachable (no offline queue) and the client reconnects with capped backoff; readiness
 * follows the connection.
 */
export class RedisStore implements Store {
  readonly backend = "redis";
  readonly persists = true;
  /** The underlying client, for diagnostics. */
  readonly redis: Redis;
  readonly #config: StoreConfig;
  readonly #keys: ReturnType<typeof redisKeys>;
  readonly #ttlMs: number;
  #checked: { at: number; ok: Promise<boolean> } | undefined;

  constructor(config: StoreConfig, options: RedisStoreOptions = {}) {
    this.#config = config;
    this.#keys = redisKeys(config.redis.key_prefix);
    this.#ttlMs = config.ttl_seconds * 1000;
    this.redis = new Redis(config.redis.url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: config.timeout_ms,
      connectTimeout: Math.max(1_000, config.timeout_ms * 4),
      retryStrategy: (times) => Math.min(100 * 2 ** (times - 1), 2_000),
    });
    this.redis.defineCommand("cgGetOwned", { numberOfKeys: 1, lua: GET_OWNED_LUA });
    this.redis.defineCommand("cgAddSticky", { numberOfKeys: 1, lua: ADD_STICKY_LUA });
    this.redis.on("error", (error: Error) => options.onError?.(error));
    const forget = () => {
      this.#checked = undefined;
    };
    this.redis.on("ready", forget);
    this.redis.on("close", forget);
  }

  async put(session: string, entries: readonly StashEntry[], options?: PutOptions): Promise<void> {
    checkPut(entries, { maxEntryBytes: this.#config.max_entry_bytes });
    const sticky = this.#newestSticky(options?.sticky ?? []);
    if (entries.length === 0 && sticky.length === 0) return;
    const transaction = this.redis.multi();
    for (const { key, value } of entries) {
      const entryKey = this.#keys.entry(key);
      transaction.hset(entryKey, VALUE_FIELD, value, ownerField(session), "1");
      transaction.pexpire(entryKey, this.#ttlMs);
    }
    if (sticky.length > 0) {
      // The sticky ids ride in the same MULTI/EXEC: one round trip for the whole request. EVAL
      // with the script text (Redis caches it compiled) rather than EVALSHA: inside a
      // transaction a NOSCRIPT after SCRIPT FLUSH or a failover could not be retried.
      transaction.eval(ADD_STICKY_LUA, 1, ...this.#addStickyArgs(session, sticky));
    }
    await this.#exec("put", transaction.exec());
  }

  async get(session: string, key: string): Promise<string | undefined> {
    const ttl = String(this.#ttlMs);
    const pending = this.#scripts.cgGetOwned(this.#keys.entry(key), ownerField(session), ttl);
    return (await this.#call("get", pending)) ?? undefined;
  }

  async sticky(session: string): Promise<ReadonlySet<string>> {
    const key = this.#keys.sticky(session);
    const transaction = this.redis.multi().zrange(key, "0", "-1").pexpire(key, this.#ttlMs);
    const [members] = await this.#exec("sticky", transaction.exec());
    return new Set(Array.isArray(members) ? members.map(String) : []);
  }

  async addSticky(session: string, ids: readonly string[]): Promise<void> {
    const newest = this.#newestSticky(ids);
    if (newest.length === 0) return;
    const args = this.#addStickyArgs(session, newest);
    await this.#call("addSticky", this.#scripts.cgAddSticky(...args));
  }

  /** The ids that survive the cap, oldest first, each once. */
  #newestSticky(ids: readonly string[]): string[] {
    return [...new Set(ids)].slice(-this.#config.max_sticky_ids);
  }

  #addStickyArgs(session: string, ids: readonly string[]): Parameters<Scripts["cgAddSticky"]> {
    const cap = String(this.#config.max_sticky_ids);
    return [this.#keys.sticky(session), cap, String(this.#ttlMs), ...ids];
  }

  get #scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  /** True while connected and the last PING (at most a second old) was answered. */
  ready(): Promise<boolean> {
    if (this.redis.status !== "ready") return Promise.resolve(false);
    const now = Date.now();
    if (this.#checked && now - this.#checked.at < READY_CACHE_MS) return this.#checked.ok;
    const ok = this.redis.ping().then(
      (answer) => answer === "PONG",
      () => false,
    );
    this.#checked = { at: now, ok };
    return ok;
  }

  /**
   * Approximate: `entries` is DBSIZE (every key of the logical database, sticky sets included)
   * and `bytes` is Redis's used_memory. Exact when the database serves only this store.
   */
  async stats(): Promise<StoreStats> {
    const transaction = this.redis.multi().dbsize().info("memory");
    const [keys, info] = await this.#exec("stats", transaction.exec());
    const used = /^used_memory:(\d+)/m.exec(String(info));
    return { entries: Number(keys), bytes: used ? Number(used[1]) : 0 };
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
