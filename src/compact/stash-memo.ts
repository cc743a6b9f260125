import { SizedMemo } from "../pipeline/sized-memo.js";
import type { StashEntry } from "../store/types.js";
import type { History, ParsedRequest } from "./turn.js";

/** A value this long or shorter is remembered as it is; a longer one by its content id. */
const LITERAL_CHARS = 32;
/** Characters an entry's bookkeeping (its record, the Map's slot) counts for beside its texts. */
const ENTRY_OVERHEAD_CHARS = 48;
/**
 * The share of the store's lifetime within which a put is trusted to be held. Well inside it:
 * the store's clock starts after ours (the put is timed before it is sent), and a put made at
 * half the lifetime leaves the other half before anything it carries can expire.
 */
const FRESH_SHARE = 0.5;

/** One entry as put: which value (`=` and the value, or `#` and its content id) and when. */
interface Put {
  readonly print: string;
  readonly at: number;
}

/** What a plan reads beside the entries. */
export interface PlanOptions {
  /** False when the store may have lost the session (its ledger is gone): nothing is held. */
  readonly trusted: boolean;
  /** The content id of a value. */
  readonly hash: (text: string) => string;
}

/**
 * What a request's put may take as held: nothing once its session's ledger is gone from the
 * store (a store that lost the ledger may have lost the rest); values told by the request's ids.
 */
export function planOptions(
  request: Pick<ParsedRequest, "hash">,
  history: Pick<History, "ledger">,
): PlanOptions {
  return { trusted: history.ledger.lastRequestAt !== undefined, hash: request.hash };
}

/** What one put of a session must carry, and how to remember it once acknowledged. */
export interface StashPlan {
  /** The entries the store may not hold yet, in the order given. */
  readonly entries: readonly StashEntry[];
  /** The store acknowledged `entries`: each is remembered as put at the plan's time. */
  remember(): void;
}

/**
 * The entries this compactor put to the store lately, per session (§7): an agent re-sends its
 * whole history every turn, so a warm turn gives back every original it stashed before, and
 * sending them all again would re-write each one on every turn (on Redis an HSET and a PEXPIRE
 * of every original). An entry the same session put with the same value within half the store's
 * lifetime (`store.ttl_seconds`) is left out of the put.
 *
 * An optimisation, never the source of truth: whatever it does not know is put, which is always
 * safe.
 * - A miss (never put from this thread, the memo let it go, another value under the key, or
 *   its put half a lifetime old or more) puts the entry again, which also resets its lifetime:
 *   an original a session keeps sending never expires under it, as when every turn put it.
 * - A restart, or another replica on the same Redis, starts with nothing known: its first turn
 *   of a session puts what that turn replays, and leaves it out from then on.
 * - A store that lost the session (its ledger gone: expired, evicted, or a Redis restarted
 *   empty) is trusted with nothing (`trusted: false`): the turn puts every entry again.
 * An original the store evicted while its session's ledger stayed (a store under memory
 * pressure) comes back at its next put, at most half a lifetime later: until then an expand
 * of it gets the placeholder of §7, as it would between an eviction and the next turn before.
 *
 * Values are told apart by content (short ones as they are, longer ones by content id), so a
 * record whose value changed under the same key is put again. Bounded by `maxChars`, the
 * compactor's share of `limits.memo_bytes`.
 */
export class StashMemo {
  readonly #puts: SizedMemo<Put>;
  readonly #freshMs: number;

  constructor(maxChars: number, lifetimeMs: number) {
    this.#puts = new SizedMemo<Put>(
      maxChars,
      (key, put) => key.length + put.print.length + ENTRY_OVERHEAD_CHARS,
    );
    this.#freshMs = lifetimeMs * FRESH_SHARE;
  }

  /**
   * The entries of a put that `session` makes at `now` which the store may not hold: those not
   * put with the same value within the fresh share of the lifetime before `now`, or every one
   * when the store is not `trusted` with what was put.
   */
  plan(
    session: string,
    entries: readonly StashEntry[],
    now: number,
    options: PlanOptions,
  ): StashPlan {
    const pending: { key: string; print: string; entry: StashEntry }[] = [];
    for (const entry of entries) {
      const key = memoKey(session, entry);
      const print = printOf(entry.value, options.hash);
      if (!this.#holds(key, print, now, options.trusted)) pending.push({ key, print, entry });
    }
    return {
      entries: pending.map(({ entry }) => entry),
      remember: () => {
        for (const { key, print } of pending) this.#puts.set(key, { print, at: now });
      },
    };
  }

  /** Whether a put `session` makes at `now` would leave `entry` out (plan). */
  holds(session: string, entry: StashEntry, now: number, options: PlanOptions): boolean {
    const print = printOf(entry.value, options.hash);
    return this.#holds(memoKey(session, entry), print, now, options.trusted);
  }

  #holds(key: string, print: string, now: number, trusted: boolean): boolean {
    const known = trusted ? this.#puts.get(key) : undefined;
    return known?.print === print && this.#fresh(known.at, now);
  }

  /** A put at `at` is still well inside the store's lifetime at `now` (a clock set back: not). */
  #fresh(at: number, now: number): boolean {
    const age = now - at;
    return age >= 0 && age < this.#freshMs;
  }
}

function memoKey(session: string, entry: StashEntry): string {
  return `${session}\u0000${entry.key}`;
}

/** A value as remembered: `=` and itself when short, else `#` and its content id. */
function printOf(value: string, hash: (text: string) => string): string {
  return value.length <= LITERAL_CHARS ? `=${value}` : `#${hash(value)}`;
}
