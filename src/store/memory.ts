import { LRUCache } from "lru-cache";
import type { ObservationWrite } from "../cache/observation.js";
import type { StoreConfig } from "../config/schema.js";
import { StoreCapacityError } from "../errors/store-error.js";
import type { SessionLedger } from "../session/ledger.js";
import { checkPut, ENTRY_OVERHEAD_BYTES, valueBytes } from "./entry-size.js";
import { MemoryLedgers } from "./memory-ledgers.js";
import { MemorySharedNumbers } from "./memory-shared-numbers.js";
import { chargeOf, SessionQuota, sessionLimits } from "./session-quota.js";
import { addNewest } from "./sticky-order.js";
import type { PutOptions, SharedNumberSwap, StashEntry, Store, StoreStats } from "./types.js";

/** A kept original and the sessions allowed to read it (oldest first, at most `max_sessions`). */
interface Kept {
  readonly value: string;
  /** Changed in place only when the session quota takes an owner off a shared entry. */
  readonly owners: Set<string>;
}

export interface MemoryStoreOptions {
  /** Milliseconds clock used for TTLs; tests inject one to move time by hand. */
  readonly clock?: () => number;
  /** The per-session accounts; tests pass one in to read them. */
  readonly quota?: SessionQuota;
}

/**
 * The in-process store (§7): one LRU of originals bounded by count (`max_entries`), bytes
 * (`max_bytes`: exact UTF-8 size of value, key and owner ids plus a fixed overhead per entry) and
 * time (`ttl_seconds`, slid by every owned read), plus the session ledgers (memory-ledgers.ts)
 * bounded by `max_ledger_bytes`, and the deployment's shared numbers (memory-shared-numbers.ts).
 * Owner records live on the entry, so they expire and are evicted together with the value. Each
 * session is held to its share of both bounds (src/store/session-quota.ts): past it, its own
 * least recently used entries go first. With `enabled: false` (clean mode) nothing is stashed;
 * ledgers are still kept.
 */
export class MemoryStore implements Store {
  readonly backend = "memory";
  readonly persists: boolean;
  readonly #kept: LRUCache<string, Kept>;
  readonly #ledgers: MemoryLedgers;
  readonly #shared: MemorySharedNumbers;
  readonly #config: StoreConfig;
  readonly #quota: SessionQuota;

  constructor(config: StoreConfig, options: MemoryStoreOptions = {}) {
    this.#config = config;
    this.persists = config.enabled;
    this.#quota = options.quota ?? new SessionQuota(sessionLimits(config));
    const ttl = config.ttl_seconds * 1000;
    const clock = options.clock;
    // ttlResolution 0: read the clock on every call, so an injected clock takes effect at once.
    // lru-cache reads a start time of 0 as "no TTL", hence the shift of an injected clock by 1.
    const timing = {
      ttl,
      updateAgeOnGet: true,
      ttlResolution: 0,
      ...(clock ? { perf: { now: () => clock() + 1 } } : {}),
    };
    this.#kept = new LRUCache<string, Kept>({
      ...timing,
      max: config.max_entries,
      maxSize: config.max_bytes,
      sizeCalculation: (kept, key) => keptBytes(key, kept),
      // After every eviction, expiry, delete or replacement: owners no longer on the key pay no more.
      disposeAfter: (kept, key) => {
        const current = this.#kept.peek(key)?.owners;
        for (const owner of kept.owners) {
          if (!current?.has(owner)) this.#quota.release(owner, key);
        }
      },
    });
    this.#ledgers = new MemoryLedgers({
      maxBytes: config.max_ledger_bytes,
      ttlMs: ttl,
      maxKept: config.max_kept_ids,
      clock,
    });
    this.#shared = new MemorySharedNumbers(clock ?? Date.now);
  }

  async put(session: string, entries: readonly StashEntry[], options?: PutOptions): Promise<void> {
    if (this.persists) this.#stash(session, entries);
    if (options?.ledger) this.#ledgers.write(session, options.ledger);
  }

  #stash(session: string, entries: readonly StashEntry[]): void {
    // Agents re-send their history, so most entries are already kept for this session: a read
    // refreshes their age and recency, and only the rest are measured and written.
    const fresh = entries.filter(({ key, value }) => {
      const kept = this.#kept.peek(key);
      if (kept?.value !== value || !kept.owners.has(session)) return true;
      this.#kept.get(key);
      this.#quota.touch(session, key);
      return false;
    });
    if (fresh.length > this.#config.max_entries) {
      throw new StoreCapacityError(
        `${fresh.length} entries in one put, more than store.max_entries`,
      );
    }
    // Each value measured once: its UTF-8 size is a pass over it, and originals run to megabytes.
    const sizes = fresh.map(({ value }) => valueBytes(value));
    checkPut(
      fresh,
      { maxEntryBytes: this.#config.max_entry_bytes, maxBytes: this.#config.max_bytes },
      sizes,
    );
    const charges = new Map(
      fresh.map(({ key, value }, index) => [key, chargeOf(session, key, value, sizes[index])]),
    );
    for (const key of this.#quota.overflow(session, charges)) this.#disown(session, key);
    for (const [index, { key, value }] of fresh.entries()) {
      const owners = new Set(this.#kept.peek(key)?.owners);
      addNewest(owners, [session], this.#config.max_sessions);
      const kept = { value, owners };
      this.#kept.set(key, kept, { size: keptBytes(key, kept, sizes[index]) });
      if (this.#kept.has(key)) this.#quota.charge(session, key, charges.get(key) ?? 0);
    }
    // Owner ids and keys count towards max_bytes too; a put whose overhead tipped the bound
    // would have evicted its own entries, and an acknowledged put must be readable.
    const lost = entries.find(({ key }) => !this.#kept.has(key));
    if (lost) {
      throw new StoreCapacityError(`entry ${lost.key} did not fit within store.max_bytes`);
    }
  }

  async get(session: string, key: string): Promise<string | undefined> {
    if (!this.#kept.peek(key)?.owners.has(session)) return undefined;
    const value = this.#kept.get(key)?.value;
    if (value !== undefined) this.#quota.touch(session, key);
    return value;
  }

  /** The session gives up `key`: the entry goes, unless other sessions own it too. */
  #disown(session: string, key: string): void {
    const kept = this.#kept.peek(key);
    this.#quota.release(session, key);
    if (kept && kept.owners.size > 1) kept.owners.delete(session);
    else this.#kept.delete(key);
  }

  async ledger(session: string): Promise<SessionLedger> {
    return this.#ledgers.get(session);
  }

  async keep(session: string, ids: readonly string[]): Promise<void> {
    this.#ledgers.keep(session, ids);
  }

  async observe(session: string, write: ObservationWrite): Promise<void> {
    this.#ledgers.observe(session, write);
  }

  async sharedNumber(name: string): Promise<number | undefined> {
    return this.#shared.get(name);
  }

  async swapSharedNumber(
    name: string,
    expected: number | undefined,
    next: number,
    ttlMs: number,
  ): Promise<SharedNumberSwap> {
    return this.#shared.swap(name, expected, next, ttlMs);
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async stats(): Promise<StoreStats> {
    this.#kept.purgeStale();
    return { entries: this.#kept.size, bytes: this.#kept.calculatedSize };
  }

  async close(): Promise<void> {
    this.#kept.clear();
    this.#ledgers.clear();
    this.#shared.clear();
    this.#quota.clear();
  }
}

function keptBytes(key: string, kept: Kept, valueSize = valueBytes(kept.value)): number {
  let bytes = ENTRY_OVERHEAD_BYTES + valueSize + valueBytes(key);
  for (const owner of kept.owners) bytes += valueBytes(owner);
  return bytes;
}
