import { LRUCache } from "lru-cache";
import type { ObservationWrite } from "../cache/observation.js";
import {
  EMPTY_LEDGER,
  type Head,
  type LedgerWrite,
  type SessionLedger,
} from "../session/ledger.js";
import { addNewest } from "./sticky-order.js";

export interface MemoryLedgerOptions {
  /** Bytes of ledgers held; the least recently used session is dropped beyond. */
  readonly maxBytes: number;
  readonly ttlMs: number;
  /** Expanded ids remembered per session. */
  readonly maxKept: number;
  /** Milliseconds clock for TTLs (lru-cache reads 0 as "no start time", hence the shift). */
  readonly clock?: (() => number) | undefined;
}

/**
 * Session ledgers of the memory store (§4a), one LRU entry per session bounded by an estimate of
 * the bytes each holds. A ledger is replaced on every write, never changed in place, so a request
 * may hold the one it read while others of the same session write theirs.
 */
export class MemoryLedgers {
  readonly #ledgers: LRUCache<string, SessionLedger>;
  readonly #maxKept: number;

  constructor(options: MemoryLedgerOptions) {
    const { clock } = options;
    this.#maxKept = options.maxKept;
    this.#ledgers = new LRUCache<string, SessionLedger>({
      ttl: options.ttlMs,
      updateAgeOnGet: true,
      ttlResolution: 0,
      ...(clock ? { perf: { now: () => clock() + 1 } } : {}),
      maxSize: options.maxBytes,
      sizeCalculation: (ledger, session) => Math.max(1, ledgerBytes(session, ledger)),
    });
  }

  get(session: string): SessionLedger {
    return this.#ledgers.get(session) ?? EMPTY_LEDGER;
  }

  write(session: string, write: LedgerWrite): void {
    const ledger = this.get(session);
    const heads = new Map<string, Head>(ledger.heads);
    for (const id of write.evict) heads.delete(id);
    if (write.chain !== undefined && write.head !== undefined) heads.set(write.chain, write.head);
    this.#ledgers.set(session, { ...ledger, lastRequestAt: write.at, heads });
  }

  /** Records an observation, and the session's learned lifetime when the write carries one. */
  observe(session: string, write: ObservationWrite): void {
    const ledger = this.get(session);
    const sessionLifetime = write.sessionLifetimeMs ?? ledger.learned?.session;
    this.#ledgers.set(session, {
      ...ledger,
      observed: write.observation,
      // As Redis reads it: no learned lifetimes until there is one.
      ...(sessionLifetime === undefined
        ? {}
        : { learned: { session: sessionLifetime, deployment: undefined } }),
    });
  }

  keep(session: string, ids: readonly string[]): void {
    if (ids.length === 0) return;
    const ledger = this.get(session);
    const kept = new Set(ledger.kept);
    addNewest(kept, ids, this.#maxKept);
    this.#ledgers.set(session, { ...ledger, kept });
  }

  clear(): void {
    this.#ledgers.clear();
  }
}

/** Roughly what a ledger occupies: ids as UTF-16, a pointer per output decision, fixed overheads. */
function ledgerBytes(session: string, ledger: SessionLedger): number {
  let bytes = 128 + session.length * 2;
  for (const [id, head] of ledger.heads) bytes += 96 + id.length * 2 + head.outputs.length * 8;
  for (const id of ledger.kept) bytes += 48 + id.length * 2;
  if (ledger.observed) bytes += 96;
  return bytes;
}
