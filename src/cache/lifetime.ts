import type { CacheConfig } from "../config/schema.js";

/**
 * The cache lifetime learned from what the server served (§4a "Observed cache state"). The
 * prior is `cache.ttl_seconds`; evidence moves it, deterministically and within bounds:
 *
 * - a miss the service did not expect (it kept the prefix, the idle time was within the
 *   lifetime) shortens it to just under that idle time, so the next idle of that length is cold;
 * - a hit after an idle time longer than the lifetime lengthens it to a quarter above that idle.
 *
 * A session moves by the whole step on its own evidence; the deployment (every session of the
 * process, or of every replica sharing one Redis) by a quarter of it, so one session's evicted
 * prefix does not make every session cold. A session without evidence of its own uses the
 * deployment's lifetime.
 */

/** Where a learned lifetime moves: shorter after an unexpected miss, longer after a late hit. */
export type LifetimeStep = "shorten" | "lengthen";

/** The learned lifetimes a request is decided by, in milliseconds; undefined: no evidence yet. */
export interface LearnedLifetime {
  readonly session: number | undefined;
  readonly deployment: number | undefined;
}

export const NO_LEARNED_LIFETIME: LearnedLifetime = Object.freeze({
  session: undefined,
  deployment: undefined,
});

/** A shortened lifetime sits this share of the idle time that missed. */
export const SHORTEN_FACTOR = 0.9;
/** A lengthened lifetime sits this multiple of the idle time that hit. */
export const LENGTHEN_FACTOR = 1.25;
/** The share of a step the deployment's lifetime takes. */
export const DEPLOYMENT_WEIGHT = 0.25;
/** Bounds, as multiples of the prior: a tenth of it, and twelve times it (Anthropic's 1 h). */
export const MIN_SHARE = 0.1;
export const MAX_MULTIPLE = 12;

export interface LifetimeBounds {
  readonly priorMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

export function lifetimeBounds(config: Pick<CacheConfig, "ttl_seconds">): LifetimeBounds {
  const priorMs = config.ttl_seconds * 1000;
  return {
    priorMs,
    minMs: Math.round(priorMs * MIN_SHARE),
    maxMs: Math.round(priorMs * MAX_MULTIPLE),
  };
}

/** The lifetime a request is judged by, and whether evidence rather than the TTL set it. */
export interface EffectiveLifetime {
  readonly ms: number;
  readonly learned: boolean;
}

/**
 * The one place the cache's lifetime is read: the session's learned lifetime, else the
 * deployment's, else `cache.ttl_seconds`.
 */
export function cacheLifetime(
  config: Pick<CacheConfig, "ttl_seconds">,
  learned: LearnedLifetime | undefined,
): EffectiveLifetime {
  const ms = learned?.session ?? learned?.deployment;
  if (ms === undefined) return { ms: config.ttl_seconds * 1000, learned: false };
  return { ms, learned: true };
}

/** The step one observation asks for, and the lifetime it aims at; undefined: none. */
export interface LifetimeEvidence {
  readonly step: LifetimeStep;
  readonly targetMs: number;
}

/**
 * What an observation says about the lifetime: `expectedHit` (the request kept the prefix the
 * server saw and was treated warm), `hit` (what was served), after `idleMs` under `lifetimeMs`.
 */
export function lifetimeEvidence(
  observation: {
    readonly expectedHit: boolean;
    readonly hit: boolean;
    readonly idleMs: number;
  },
  lifetimeMs: number,
): LifetimeEvidence | undefined {
  const { expectedHit, hit, idleMs } = observation;
  if (!hit && expectedHit && idleMs <= lifetimeMs) {
    return { step: "shorten", targetMs: Math.floor(idleMs * SHORTEN_FACTOR) };
  }
  if (hit && idleMs * LENGTHEN_FACTOR > lifetimeMs) {
    return { step: "lengthen", targetMs: Math.ceil(idleMs * LENGTHEN_FACTOR) };
  }
  return undefined;
}

/**
 * `current` moved by `weight` of the way towards `evidence.targetMs` (only in the direction of
 * its step), rounded to whole milliseconds and kept within the bounds.
 */
export function stepLifetime(
  current: number,
  evidence: LifetimeEvidence,
  weight: number,
  bounds: LifetimeBounds,
): number {
  const { step, targetMs } = evidence;
  const moves = step === "shorten" ? targetMs < current : targetMs > current;
  const next = moves ? Math.round(current + (targetMs - current) * weight) : current;
  return Math.min(bounds.maxMs, Math.max(bounds.minMs, next));
}
