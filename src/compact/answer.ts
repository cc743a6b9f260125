import type { CachePrediction } from "../cache/observation.js";
import type { CacheTreatment } from "../cache/policy.js";
import { needsPieces } from "../store/pieces.js";
import type { StashEntry } from "../store/types.js";
import type { Provider } from "../wire/types.js";
import type { CompactResult, Passthrough } from "./options.js";
import type { History, ParsedRequest } from "./turn.js";

/** A body that goes back as it came, without running the pipeline, and why. */
export function passthrough(
  text: string,
  provider: Provider,
  session: string,
  reason: Passthrough,
): CompactResult {
  return {
    text,
    changed: false,
    provider,
    session,
    tokensBefore: 0,
    tokensAfter: 0,
    markers: 0,
    markerIds: [],
    cache: { state: "warm", reason: "unknown" },
    replayed: 0,
    pipelineFallback: false,
    passthrough: reason,
  };
}

/** A parsed request that goes back as it came, treated as `cache`, and why. */
export function unchanged(
  request: ParsedRequest,
  cache: CacheTreatment,
  reason: Passthrough,
): CompactResult {
  return { ...passthrough(request.text, request.shape.name, request.session, reason), cache };
}

/** What a request treated as `treatment` expects of the server's cache (§4a). */
export function predict(history: History, treatment: CacheTreatment): CachePrediction {
  const { ledger, now } = history;
  return {
    at: now,
    // Replicas' clocks may disagree by a little: an idle time is never negative.
    idleMs:
      ledger.lastRequestAt === undefined ? undefined : Math.max(0, now - ledger.lastRequestAt),
    expectedHit: treatment.state === "warm" && history.head !== undefined,
    previousInputTokens: ledger.observed?.inputTokens,
    learned: ledger.learned,
  };
}

/** Originals of `entries` the store keeps in pieces (store/pieces.ts). */
export function countPieced(entries: readonly StashEntry[], maxEntryBytes: number): number {
  return entries.filter(({ value }) => needsPieces(value, maxEntryBytes)).length;
}
