import type { CacheConfig } from "../config/schema.js";
import type { SessionLedger } from "../session/ledger.js";
import { cacheLifetime } from "./lifetime.js";

/** What a request is treated as (§4a): `warm` replays what was sent, `cold` may re-decide it. */
export type CacheState = "warm" | "cold";

/**
 * Why: the request header said so; `cache.policy: ignore`; the session's previous request is
 * older than `cache.ttl_seconds`; the request is over `cache.context_budget_tokens`; or, for
 * warm, the session was seen recently or never (an unknown history counts as warm: misreading a
 * warm cache as cold is the expensive mistake). `observed`: the cache lifetime learned from
 * what the server served (cache/lifetime.ts) decided where `cache.ttl_seconds` would not have.
 * `priced`: a warm prefix broken on purpose because clearing it pays (cache/break-decision.ts).
 * `first`: a session's first request, which has no earlier assistant turn, so nothing of it is
 * cached beyond what every session shares. `diverged`: the client left its conversation at an
 * already-sent message, so the server's cache is cold from there (session/divergence.ts).
 */
export type CacheReason =
  | "header"
  | "policy"
  | "ttl"
  | "budget"
  | "recent"
  | "unknown"
  | "observed"
  | "priced"
  | "first"
  | "diverged";

export interface CacheTreatment {
  readonly state: CacheState;
  readonly reason: CacheReason;
}

/** The `x-context-guru-cache` header's value, or undefined when absent or not one of the two. */
export function parseCacheHeader(value: string | null | undefined): CacheState | undefined {
  const normalised = value?.trim().toLowerCase();
  return normalised === "warm" || normalised === "cold" ? normalised : undefined;
}

/** What the session's history says of a request (§4a "Live sessions"). */
export interface RequestHistory {
  readonly now: number;
  /** It has no earlier assistant turn: the session's first request. */
  readonly first: boolean;
  /** It left its conversation at an already-sent message. */
  readonly diverged: boolean;
  /** The agent summarises its own history: given back as it was sent, never re-decided. */
  readonly agentCompaction: boolean;
  /** The ledger holds a head the request stands on. */
  readonly known: boolean;
}

/**
 * How a request is treated before it is compacted: the header wins, then policy; a session's
 * first request is cold; then the idle time against the cache's lifetime (learned from what the
 * server served, else the TTL); then a divergence. The agent's own compaction is warm whatever
 * the clock says: its conversation goes as it was sent.
 */
export function treatRequest(
  config: CacheConfig,
  header: CacheState | undefined,
  ledger: SessionLedger,
  history: RequestHistory,
): CacheTreatment {
  if (history.agentCompaction) {
    return { state: "warm", reason: history.known ? "recent" : "unknown" };
  }
  if (header !== undefined) return { state: header, reason: "header" };
  if (config.policy === "ignore") return { state: "cold", reason: "policy" };
  if (history.first) return { state: "cold", reason: "first" };
  if (ledger.lastRequestAt === undefined) return { state: "warm", reason: "unknown" };
  const idle = history.now - ledger.lastRequestAt;
  const pastTtl = idle > config.ttl_seconds * 1000;
  const lifetime = cacheLifetime(config, ledger.learned);
  if (idle > lifetime.ms) {
    return { state: "cold", reason: lifetime.learned && !pastTtl ? "observed" : "ttl" };
  }
  if (history.diverged) return { state: "cold", reason: "diverged" };
  return { state: "warm", reason: lifetime.learned && pastTtl ? "observed" : "recent" };
}

/** Whether a warm request's result is over the context budget, so its head is re-decided. */
export function overBudget(config: CacheConfig, tokens: number): boolean {
  return config.context_budget_tokens > 0 && tokens > config.context_budget_tokens;
}
