import type { StoreConfig } from "../config/schema.js";
import { ConfigError } from "../errors/config-error.js";
import { createRedisClient } from "../store/redis-client.js";
import { randomHashKey } from "./random.js";
import type { HashKeyHandle, HashKeyOptions } from "./resolve.js";

/** Where the replicas' shared marker key lives: one string key under the store's prefix. */
export function sharedHashKeyName(prefix: string): string {
  return `${prefix}hash-key`;
}

/** Below this a value found in Redis is not taken as a marker key (`store.hash_key`'s minimum). */
const MIN_KEY_LENGTH = 16;

/**
 * The marker key shared by every replica on one Redis or Redis Cluster (§6): the first replica to start writes a
 * random key with SET NX, every later one reads it. Start-up waits while Redis is unreachable.
 * The connection stays open so that, should Redis come back empty (a restart without
 * persistence), the running replicas write their key again before a new replica makes another.
 */
export async function sharedHashKey(
  redis: StoreConfig["redis"],
  options: HashKeyOptions = {},
): Promise<HashKeyHandle> {
  const name = sharedHashKeyName(redis.key_prefix);
  // One key: on a cluster it lives on whichever shard serves its slot, like any other key.
  const client = createRedisClient(redis, { offlineQueue: true, maxRetriesPerRequest: null });
  let waiting = true;
  client.on("error", (error: Error) => {
    if (waiting) options.onWait?.(error);
  });
  client.on("node error", (error: Error) => {
    if (waiting) options.onWait?.(error);
  });
  const claim = async (candidate: string): Promise<string> => {
    const replies = await client.multi().set(name, candidate, "NX").get(name).exec();
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (!replies || failed) throw failed ?? new Error("transaction aborted");
    const value = replies[1]?.[1];
    if (typeof value !== "string" || value.length < MIN_KEY_LENGTH) {
      throw new Error(`${name} does not hold a key of at least ${MIN_KEY_LENGTH} characters`);
    }
    return value;
  };
  let key: string;
  try {
    key = await claim(randomHashKey());
  } catch (error) {
    client.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      "store.hash_key",
      `not set, and the shared key ${name} could not be read from Redis (${reason})`,
      { cause: error },
    );
  }
  waiting = false;
  client.on("ready", () => {
    claim(key).then(
      (current) => {
        if (current !== key) options.onMismatch?.();
      },
      () => undefined,
    );
  });
  return {
    key,
    close: async () => {
      // QUIT only over a live connection, and never waited on for long: shutdown must not hang.
      if (client.status === "ready") {
        const quit = client.quit().catch(() => undefined);
        await Promise.race([quit, new Promise((done) => setTimeout(done, 500).unref())]);
      }
      client.disconnect();
    },
  };
}
