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
 */
export type CacheReason =
  | "header"
  | "policy"
  | "ttl"
  | "budget"
  | "recent"
  | "unknown"
  | "observed"
  | "priced";

export interface CacheTreatment {
  readonly state: CacheState;
  readonly reason: CacheReason;
}

/** The `x-context-guru-cache` header's value, or undefined when absent or not one of the two. */
export function parseCacheHeader(value: string | null | undefined): CacheState | undefined {
  const normalised = value?.trim().toLowerCase();
  return normalised === "warm" || normalised === "cold" ? normalised : undefined;
}

/**
 * How a request is treated before it is compacted: the header wins, then policy, then the idle
 * time against the cache's lifetime (learned from what the server served, else the TTL).
 */
export function treatRequest(
  config: CacheConfig,
  header: CacheState | undefined,
  ledger: SessionLedger,
  now: number,
): CacheTreatment {
  if (header !== undefined) return { state: header, reason: "header" };
  if (config.policy === "ignore") return { state: "cold", reason: "policy" };
  if (ledger.lastRequestAt === undefined) return { state: "warm", reason: "unknown" };
  const idle = now - ledger.lastRequestAt;
  const pastTtl = idle > config.ttl_seconds * 1000;
  const lifetime = cacheLifetime(config, ledger.learned);
  if (idle > lifetime.ms) {
    return { state: "cold", reason: lifetime.learned && !pastTtl ? "observed" : "ttl" };
  }
  return { state: "warm", reason: lifetime.learned && pastTtl ? "observed" : "recent" };
}

/** Whether a warm request's result is over the context budget, so its head is re-decided. */
export function overBudget(config: CacheConfig, tokens: number): boolean {
  return config.context_budget_tokens > 0 && tokens > config.context_budget_tokens;
}
