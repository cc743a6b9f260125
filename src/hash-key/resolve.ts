import type { StoreConfig } from "../config/schema.js";
import { randomHashKey } from "./random.js";
import { sharedHashKey } from "./redis.js";

/** The marker key of a running process, and what to release at shutdown. */
export interface HashKeyHandle {
  readonly key: string;
  close(): Promise<void>;
}

export interface HashKeyOptions {
  /** Each failed attempt to reach Redis while start-up waits for the shared key. */
  readonly onWait?: (error: Error) => void;
  /** Redis came back holding another key than this process uses (see docs/security.md). */
  readonly onMismatch?: () => void;
}

/**
 * The marker key (§6), resolved once before the app is built: `store.hash_key` when set; else,
 * on Redis, the key every replica shares; else a random key of this process (its memory store
 * loses its originals on restart anyway, so ids need not outlive it).
 */
export async function resolveHashKey(
  store: StoreConfig,
  options: HashKeyOptions = {},
): Promise<HashKeyHandle> {
  if (store.hash_key !== undefined) return fixed(store.hash_key);
  if (store.enabled && store.backend === "redis") return sharedHashKey(store.redis, options);
  return fixed(randomHashKey());
}

function fixed(key: string): HashKeyHandle {
  return { key, close: async () => undefined };
}
