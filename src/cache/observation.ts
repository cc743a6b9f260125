import type { LearnedLifetime } from "./lifetime.js";

/** Whether a request was (predicted: expected to be; observed: reported as) served from cache. */
export type CacheHit = "hit" | "miss";

/**
 * What the ledger keeps of a session's latest observed request (§4a "Observed cache state"): what
 * the compaction predicted, what the server served, and the idle time in between. No content.
 */
export interface CacheObservation {
  /** When the request arrived (ms since the epoch). */
  readonly at: number;
  /** Time since the session's previous request; undefined for its first. */
  readonly idleMs: number | undefined;
  /** `hit` when the request was treated warm and kept the prefix the server saw before. */
  readonly predicted: CacheHit;
  readonly observed: CacheHit;
  /** Prompt tokens served from cache, and in all, as the server counted them. */
  readonly cachedTokens: number;
  readonly inputTokens: number;
}

/**
 * One observation's write to its session's ledger: the record, and the session's learned
 * lifetime after it (the deployment's is a shared number: cache/deployment-lifetime.ts).
 */
export interface ObservationWrite {
  readonly observation: CacheObservation;
  /** The session's learned lifetime after it; undefined leaves it as it was. */
  readonly sessionLifetimeMs: number | undefined;
}

/** An observation as text, for backends that keep strings (Redis). */
export function encodeObservation(observation: CacheObservation): string {
  const { at, idleMs, predicted, observed, cachedTokens, inputTokens } = observation;
  return JSON.stringify({
    a: at,
    ...(idleMs === undefined ? {} : { i: idleMs }),
    p: predicted,
    o: observed,
    c: cachedTokens,
    n: inputTokens,
  });
}

/** The observation `text` encodes, or undefined when it is not one. */
export function decodeObservation(text: string): CacheObservation | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { a, i, p, o, c, n } = value as Record<string, unknown>;
  if (!isCount(a) || !isHit(p) || !isHit(o) || !isCount(c) || !isCount(n)) return undefined;
  if (i !== undefined && !isCount(i)) return undefined;
  return { at: a, idleMs: i, predicted: p, observed: o, cachedTokens: c, inputTokens: n };
}

function isHit(value: unknown): value is CacheHit {
  return value === "hit" || value === "miss";
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/**
 * What a compaction expected of the server's cache (§4a), carried to where the response is seen:
 * the treatment's prediction, the idle time it was judged on and what the ledger knew then.
 */
export interface CachePrediction {
  /** When the request arrived (the compactor's clock). */
  readonly at: number;
  /** Time since the session's previous request; undefined for its first. */
  readonly idleMs: number | undefined;
  /** Treated warm and given back the prefix the server saw before: a hit is expected. */
  readonly expectedHit: boolean;
  /** Prompt tokens of the session's previous observed request: the prefix a kept head extends. */
  readonly previousInputTokens: number | undefined;
  /** The learned lifetimes the treatment was decided with. */
  readonly learned: LearnedLifetime | undefined;
}
