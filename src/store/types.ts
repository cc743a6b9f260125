/** One original to keep: `value` under `key` (a marker id, or a reformat record key). */
export interface StashEntry {
  readonly key: string;
  readonly value: string;
}

/** What else a put records, in the same acknowledged write as its entries. */
export interface PutOptions {
  /** Ids to add to the session's sticky set, exactly as `addSticky` would. */
  readonly sticky?: readonly string[];
}

export interface StoreStats {
  readonly entries: number;
  readonly bytes: number;
}

/**
 * Where originals live (§7). Every method is asynchronous so network backends fit; callers
 * bound each call with the configured store deadline.
 */
export interface Store {
  readonly backend: "memory" | "redis" | "nop";
  /** False for the nop store: nothing put is ever returned, so markers must not be written. */
  readonly persists: boolean;
  /**
   * Keeps every entry and records `session` as an owner of each key, and adds
   * `options.sticky` to the session's sticky set. Resolves only once all of it is acknowledged;
   * rejects if any of it could not be kept (the caller then reverts). One round trip on Redis.
   */
  put(session: string, entries: readonly StashEntry[], options?: PutOptions): Promise<void>;
  /** The value under `key` if `session` owns it and it has not expired; a read slides the TTL. */
  get(session: string, key: string): Promise<string | undefined>;
  /** The ids a session has already reduced (kept so output stays byte-stable across turns). */
  sticky(session: string): Promise<ReadonlySet<string>>;
  addSticky(session: string, ids: readonly string[]): Promise<void>;
  /** True when the backend can serve requests now (readiness). */
  ready(): Promise<boolean>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}
