import type { ObservationWrite } from "../cache/observation.js";
import type { LedgerWrite, SessionLedger } from "../session/ledger.js";

/** One original to keep: `value` under `key` (a marker id, or a reformat record key). */
export interface StashEntry {
  readonly key: string;
  readonly value: string;
}

/** What else a put records, in the same acknowledged write as its entries. */
export interface PutOptions {
  /** The request's addition to its session's ledger (§4a). */
  readonly ledger?: LedgerWrite;
}

/** What a compare-and-set of a shared number did. */
export interface SharedNumberSwap {
  /** True when the number held what was expected and now holds the new value. */
  readonly swapped: boolean;
  /** What the number holds after the call (undefined: unset), the new value when swapped. */
  readonly current: number | undefined;
}

export interface StoreStats {
  readonly entries: number;
  readonly bytes: number;
}

/**
 * Where the service keeps what it remembers between requests (§7): originals (stashes) and each
 * session's ledger (§4a). Every method is asynchronous so network backends fit; callers bound
 * each call with the configured store deadline.
 */
export interface Store {
  readonly backend: "memory" | "redis";
  /**
   * False when stashes are off (`store.enabled: false`, clean mode): nothing put is ever returned
   * by `get`, so markers must not be written. The ledger is kept either way.
   */
  readonly persists: boolean;
  /**
   * Keeps every entry and records `session` as an owner of each key, and applies
   * `options.ledger`. Resolves only once all of it is acknowledged; rejects if any of it could
   * not be kept (the caller then reverts). One round trip on Redis.
   */
  put(session: string, entries: readonly StashEntry[], options?: PutOptions): Promise<void>;
  /**
   * A value a coming put of this request will likely carry. A store reached across threads (a
   * worker's stand-in, src/compaction/store-rpc.ts) sends a long one ahead, so that it is taken in
   * while the request goes on; the others need no such thing and have no such method. Advisory:
   * a put carries each of its entries whether its value was staged or not.
   */
  stage?(value: string): void;
  /** The value under `key` if `session` owns it and it has not expired; a read slides the TTL. */
  get(session: string, key: string): Promise<string | undefined>;
  /** The session's ledger (empty for a session never seen); a read slides its TTL. */
  ledger(session: string): Promise<SessionLedger>;
  /** Records content ids the model expanded, so later decisions keep those originals verbatim. */
  keep(session: string, ids: readonly string[]): Promise<void>;
  /**
   * Records what the server served for one of the session's requests (§4a "Observed cache
   * state"), and the session's learned cache lifetime when the write carries one.
   */
  observe(session: string, write: ObservationWrite): Promise<void>;
  /**
   * The number `name` the whole deployment shares (every session; on Redis every replica), or
   * undefined while it is unset or has expired. What a number means is its caller's business.
   */
  sharedNumber(name: string): Promise<number | undefined>;
  /**
   * Compare-and-set: sets the shared number `name` to `next`, kept `ttlMs` from now, only if it
   * still holds `expected` (undefined: unset), as one atomic step across replicas. Resolves to
   * what it holds after the call, so a caller that expected a stale value computes again from
   * `current` without another read (src/store/shared-number.ts).
   */
  swapSharedNumber(
    name: string,
    expected: number | undefined,
    next: number,
    ttlMs: number,
  ): Promise<SharedNumberSwap>;
  /** True when the backend can serve requests now (readiness). */
  ready(): Promise<boolean>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
}

/**
 * What a store keeps, as an operator reads it at start-up and on `/readyz`: `none` when it keeps
 * no originals (clean mode, `store.enabled: false`), else the backend. The session ledgers live
 * on the backend either way (`ledger`).
 */
export function storeDescription(store: Pick<Store, "backend" | "persists">): {
  readonly store: "none" | Store["backend"];
  readonly ledger: Store["backend"];
} {
  return { store: store.persists ? store.backend : "none", ledger: store.backend };
}
