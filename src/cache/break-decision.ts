import type { ConversationCost } from "../session/ledger.js";
import type { Pricing } from "./pricing.js";

/**
 * Priced breaks (§4a): whether re-deciding the head of a warm request pays. Breaking re-writes
 * the suffix after the first changed message once; clearing X tokens saves reading them on
 * every later warm turn, until the next cold one (which would clear them anyway). The session's
 * own history says how many turns to expect: a conversation that has lasted n requests is as
 * likely as not to last n more, spaced as they have been, with cold ones as often and as
 * regularly as they have come. A break is taken only when the expected saving is at least BREAK_MARGIN times
 * its cost, and only while the session stays within LOSS_BOUND of what it would have cost
 * uncompacted even if it ended right after: a break is a bet on turns to come, its loss bounded.
 */

/** The saving must be this many times the re-write. */
export const BREAK_MARGIN = 2;
/** Requests a conversation must have had before its history prices a break. */
export const MIN_TURNS = 10;
/** A break must clear at least this share of the request: breaks are rare and large. */
export const MIN_CLEARED_SHARE = 0.3;
/**
 * Requests a conversation must have had since its last cold one or break before another break
 * is priced: a break right after one would re-write what that one just wrote, to clear little
 * more than what its newest turn kept.
 */
export const MIN_WARM_RUN = 3;
/** Later turns a break is expected to repay itself over, at most. */
export const HORIZON_CAP = 40;
/** A session's estimated cost may not pass this multiple of its uncompacted cost by a break. */
export const LOSS_BOUND = 1.02;

/** What this request would be frozen as, and what a re-decision of its head would change. */
export interface HeadEstimate {
  /** Message tokens of the request as it would be returned warm. */
  readonly tokens: number;
  /** Tokens a re-decision would remove (X). */
  readonly cleared: number;
  /** Tokens from the first message it would change to the end, as returned warm (S). */
  readonly suffix: number;
}

export interface BreakContext {
  readonly pricing: Pricing;
  /** The conversation's history up to its previous request; undefined: unknown, no break. */
  readonly history: ConversationCost | undefined;
  /** When the previous request was recorded, and now (ms). */
  readonly previousAt: number;
  readonly now: number;
  /** The cache lifetime the request is judged by (cache/lifetime.ts). */
  readonly lifetimeMs: number;
  /** Message tokens of the request as received. */
  readonly received: number;
}

export interface BreakPrice {
  readonly pays: boolean;
  /** Expected saving over the turns to come, and the re-write now (uncached-token units). */
  readonly saving: number;
  readonly cost: number;
}

const NO_BREAK: BreakPrice = Object.freeze({ pays: false, saving: 0, cost: 0 });

/**
 * Whether any break could pay in this context, whatever it would clear: the conversation has a
 * history of at least MIN_TURNS requests, MIN_WARM_RUN of them since its last cold request or
 * break, a cached token costs something, and the cache lives.
 * A request that fails this needs no estimate of what a re-decision would clear.
 */
export function breakPossible(context: BreakContext): boolean {
  const { pricing, history, lifetimeMs } = context;
  if (history === undefined || history.turns < MIN_TURNS) return false;
  const lastCleared = Math.max(history.lastCold, history.lastBreak);
  if (lastCleared > 0 && history.turns - lastCleared < MIN_WARM_RUN) return false;
  return pricing.read > 0 && lifetimeMs > 0;
}

/** Whether breaking the warm prefix to clear `estimate.cleared` tokens pays. Deterministic. */
export function priceBreak(context: BreakContext, estimate: HeadEstimate): BreakPrice {
  const { pricing, history, lifetimeMs } = context;
  if (!history || !breakPossible(context)) return NO_BREAK;
  if (estimate.cleared < MIN_CLEARED_SHARE * estimate.tokens || estimate.cleared <= 0) {
    return NO_BREAK;
  }
  const warmNow = warmth(context.now - context.previousAt, lifetimeMs);
  const spacing = Math.max(0, context.previousAt - history.since) / (history.turns - 1);
  // A later turn is warm as often as its idle time stays within the lifetime, and as the
  // conversation's own cold turns say.
  const warmNext = Math.min(idleWithin(spacing, lifetimeMs), 1 - history.colds / history.turns);
  const horizon = Math.min(HORIZON_CAP, warmRunLeft(history));
  // Later warm turns in a row: the k-th comes as often as a conversation of n requests goes on
  // to n + k (n / (n + k): sessions' lengths are scale-free, so one that has lasted n requests
  // is as likely as not to last n more), each warm with the probability the spacing so far gives.
  const lasted = history.turns + 1;
  let expectedWarm = 0;
  let chance = 1;
  for (let turn = 1; turn <= horizon; turn++) {
    chance *= warmNext;
    expectedWarm += (chance * lasted) / (lasted + turn);
  }
  const saving = pricing.read * estimate.cleared * expectedWarm;
  const cost = warmNow * breakPremium(pricing, estimate);
  const pays = saving >= BREAK_MARGIN * cost && withinLoss(context, estimate, warmNow);
  return { pays, saving, cost };
}

/**
 * Warm requests left after this one before the cache is expected cold again, from the runs of
 * warm requests the conversation has had between cold ones: as long as they were on average,
 * less those already in the current run. Unbounded while no run has ended in a cold request.
 * A break is cleared anyway by the next cold request, so only the warm ones before it repay it.
 */
export function warmRunLeft(history: ConversationCost): number {
  if (history.warmRuns === 0 || history.lastCold === 0) return Number.POSITIVE_INFINITY;
  const usual = history.warmRunTurns / history.warmRuns;
  // The current request is the run's next one: those after it are left.
  const into = history.turns - history.lastCold + 1;
  return Math.max(0, Math.floor(usual - into));
}

/**
 * The chance the idle time before a later request stays within the lifetime, the idle times
 * taken as exponential about the conversation's mean spacing: requests 20 s apart on average
 * almost never outlive a 300 s cache (1 − e^−15), requests 300 s apart often do (1 − e^−1). The
 * linear warmth below is for a request whose idle time is known.
 */
export function idleWithin(spacingMs: number, lifetimeMs: number): number {
  if (spacingMs <= 0) return 1;
  return 1 - Math.exp(-lifetimeMs / spacingMs);
}

/** The chance a cache idle for `idleMs` still holds the prefix: 1 falling to 0 at the lifetime. */
export function warmth(idleMs: number, lifetimeMs: number): number {
  if (idleMs >= lifetimeMs) return 0;
  return 1 - Math.max(0, idleMs) / lifetimeMs;
}

/** What a warm break costs above keeping the prefix: the suffix written instead of read. */
function breakPremium(pricing: Pricing, estimate: HeadEstimate): number {
  const rewritten = Math.max(0, estimate.suffix - estimate.cleared);
  return Math.max(0, pricing.write * rewritten - pricing.read * estimate.suffix);
}

/** Whether the session, were it to end after this break, stays within LOSS_BOUND of bypass. */
function withinLoss(context: BreakContext, estimate: HeadEstimate, warmNow: number): boolean {
  const { pricing, history } = context;
  if (!history) return false;
  const bypass = history.bypass + turnCost(pricing, history.before, context.received, warmNow);
  // The history is kept in message tokens: the suffix counted in them, the tool calls left out.
  const suffix = Math.min(estimate.suffix, estimate.tokens);
  const kept = estimate.tokens - suffix;
  const broken =
    warmNow * (pricing.read * kept + pricing.write * Math.max(0, suffix - estimate.cleared)) +
    (1 - warmNow) * pricing.write * (estimate.tokens - estimate.cleared);
  return history.spent + broken <= LOSS_BOUND * bypass;
}

/**
 * What one request costs when the previous one sent `previous` tokens it extends to `tokens`:
 * the shared part read (when warm), the rest written.
 */
export function turnCost(pricing: Pricing, previous: number, tokens: number, warm: number): number {
  const shared = Math.min(previous, tokens);
  const warmCost = pricing.read * shared + pricing.write * (tokens - shared);
  return warm * warmCost + (1 - warm) * pricing.write * tokens;
}

/**
 * The conversation's history after this request: one more turn, its tokens, and what it cost
 * compacted and uncompacted. `kept` is how many returned tokens of the previous request this one
 * still starts with (all of them on a warm turn, none on a cold one, up to the first change on a
 * break).
 */
export function nextHistory(
  pricing: Pricing,
  history: ConversationCost | undefined,
  turn: {
    now: number;
    received: number;
    returned: number;
    kept: number;
    warm: boolean;
    cold: boolean;
    /** Whether the service broke the warm prefix on purpose (priced, budget). */
    broke: boolean;
  },
): ConversationCost {
  const warm = turn.warm ? 1 : 0;
  const previousBefore = history?.before ?? 0;
  const kept = Math.min(turn.kept, turn.returned);
  const spent = warm * pricing.read * kept + pricing.write * (turn.returned - warm * kept);
  const turns = (history?.turns ?? 0) + 1;
  const lastCold = history?.lastCold ?? 0;
  // A cold request ends the warm run since the previous cold one.
  const endsRun = turn.cold && lastCold > 0;
  return {
    turns,
    colds: (history?.colds ?? 0) + (turn.cold ? 1 : 0),
    lastCold: turn.cold ? turns : lastCold,
    lastBreak: turn.broke ? turns : (history?.lastBreak ?? 0),
    warmRuns: (history?.warmRuns ?? 0) + (endsRun ? 1 : 0),
    warmRunTurns: (history?.warmRunTurns ?? 0) + (endsRun ? turns - lastCold - 1 : 0),
    since: history?.since ?? turn.now,
    before: turn.received,
    after: turn.returned,
    spent: (history?.spent ?? 0) + spent,
    bypass: (history?.bypass ?? 0) + turnCost(pricing, previousBefore, turn.received, warm),
  };
}
