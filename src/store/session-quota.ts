import type { StoreConfig } from "../config/schema.js";
import { StoreCapacityError } from "../errors/store-error.js";
import { ENTRY_OVERHEAD_BYTES, valueBytes } from "./entry-size.js";

/** What one session may hold of the memory store. */
export interface SessionLimits {
  readonly bytes: number;
  readonly entries: number;
}

/**
 * The default of `store.max_session_bytes` (resolved by parseConfig): an eighth of `max_bytes`,
 * but never less than the body limit, so that one output as large as a body the service accepts
 * can be kept whole (§1: nothing lost with the store on), and never more than `max_bytes`.
 */
export function defaultSessionBytes(config: StoreConfig, bodyBytes: number): number {
  return Math.min(config.max_bytes, Math.max(Math.floor(config.max_bytes / 8), bodyBytes));
}

/**
 * A session's share: `store.max_session_bytes` (see defaultSessionBytes; an eighth of
 * `max_bytes` for a store configuration read on its own) of the bytes, and the same fraction of
 * `max_entries`, so neither bound can be filled by one session.
 */
export function sessionLimits(config: StoreConfig): SessionLimits {
  const bytes = Math.min(
    config.max_session_bytes ?? Math.floor(config.max_bytes / 8),
    config.max_bytes,
  );
  const entries = Math.floor((config.max_entries * bytes) / config.max_bytes);
  return { bytes, entries: Math.max(1, entries) };
}

/**
 * What a session is charged for owning `value` under `key`: what the store counts for it.
 * `bytes`: the value's size when already measured (a multi-megabyte original is measured once).
 */
export function chargeOf(
  session: string,
  key: string,
  value: string,
  bytes = valueBytes(value),
): number {
  return ENTRY_OVERHEAD_BYTES + bytes + valueBytes(key) + valueBytes(session);
}

/** The entries one session is charged for, by key, least recently used first. */
interface Account {
  bytes: number;
  readonly keys: Map<string, number>;
}

/**
 * The memory store's per-session quota (`store.max_session_bytes`): every session is charged for
 * the entries it owns, and a put that would take a session past its share first gives up that
 * session's own least recently used entries. One session therefore never holds more than its
 * share, and cannot push the store to its global bound and evict the entries of others.
 */
export class SessionQuota {
  readonly #accounts = new Map<string, Account>();

  constructor(readonly limits: SessionLimits) {}

  /**
   * The keys `session` must give up, least recently used first, for `incoming` (key → charge)
   * to fit its share. Keys of `incoming` are never among them. Throws StoreCapacityError when
   * `incoming` alone is more than one session may hold.
   */
  overflow(session: string, incoming: ReadonlyMap<string, number>): string[] {
    let incomingBytes = 0;
    for (const bytes of incoming.values()) incomingBytes += bytes;
    if (incomingBytes > this.limits.bytes) {
      throw new StoreCapacityError(
        `${incomingBytes} bytes in one put, more than store.max_session_bytes`,
      );
    }
    if (incoming.size > this.limits.entries) {
      throw new StoreCapacityError(
        `${incoming.size} entries in one put, more than one session's share of store.max_entries`,
      );
    }
    const account = this.#accounts.get(session);
    if (!account) return [];
    let bytes = account.bytes + incomingBytes;
    let entries = account.keys.size + incoming.size;
    for (const key of incoming.keys()) {
      const charged = account.keys.get(key);
      if (charged === undefined) continue;
      bytes -= charged;
      entries--;
    }
    const given: string[] = [];
    for (const [key, charged] of account.keys) {
      if (bytes <= this.limits.bytes && entries <= this.limits.entries) break;
      if (incoming.has(key)) continue;
      given.push(key);
      bytes -= charged;
      entries--;
    }
    return given;
  }

  /** Charges `session` for `key` (again) as its most recently used entry. */
  charge(session: string, key: string, bytes: number): void {
    let account = this.#accounts.get(session);
    if (!account) {
      account = { bytes: 0, keys: new Map() };
      this.#accounts.set(session, account);
    }
    account.bytes += bytes - (account.keys.get(key) ?? 0);
    account.keys.delete(key);
    account.keys.set(key, bytes);
  }

  /** Makes `key` the session's most recently used entry, if it is charged for it. */
  touch(session: string, key: string): void {
    const account = this.#accounts.get(session);
    const charged = account?.keys.get(key);
    if (account === undefined || charged === undefined) return;
    account.keys.delete(key);
    account.keys.set(key, charged);
  }

  /** Stops charging `session` for `key` (the entry left the store, or the session its owners). */
  release(session: string, key: string): void {
    const account = this.#accounts.get(session);
    const charged = account?.keys.get(key);
    if (account === undefined || charged === undefined) return;
    account.keys.delete(key);
    account.bytes -= charged;
    if (account.keys.size === 0) this.#accounts.delete(session);
  }

  /** What `session` is charged for now. */
  usage(session: string): { readonly bytes: number; readonly entries: number } {
    const account = this.#accounts.get(session);
    return { bytes: account?.bytes ?? 0, entries: account?.keys.size ?? 0 };
  }

  clear(): void {
    this.#accounts.clear();
  }
}
