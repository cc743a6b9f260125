import type { StoreConfig } from "../config/schema.js";
import { withDeadline } from "./deadline.js";
import { MemoryStore } from "./memory.js";
import { withPieces } from "./pieces.js";
import { RedisStore } from "./redis.js";
import type { Store } from "./types.js";

export interface CreateStoreOptions {
  /** Milliseconds clock for the memory store's TTLs (tests move time by hand). */
  readonly clock?: () => number;
  /** Redis connection problems as they happen; the client keeps reconnecting by itself. */
  readonly onError?: (error: Error) => void;
}

/**
 * The one store of the process (§7), on the configured backend. With `store.enabled: false` it
 * stashes nothing (clean mode) but still keeps the session ledgers (§4a). The Redis store is
 * bounded by `store.timeout_ms` on every call; the memory store answers synchronously and needs
 * no deadline. On both, an original larger than `store.max_entry_bytes` is kept in pieces
 * (pieces.ts).
 */
export function createStore(config: StoreConfig, options: CreateStoreOptions = {}): Store {
  return withPieces(createBackendStore(config, options), config.max_entry_bytes);
}

/** The backend alone, each original one entry at most `store.max_entry_bytes` (larger: rejected). */
export function createBackendStore(config: StoreConfig, options: CreateStoreOptions = {}): Store {
  switch (config.backend) {
    case "memory":
      return new MemoryStore(config, options.clock ? { clock: options.clock } : {});
    case "redis":
      return withDeadline(
        new RedisStore(config, options.onError ? { onError: options.onError } : {}),
        config.timeout_ms,
      );
  }
}
