import type { CacheConfig } from "../config/schema.js";
import type { Store } from "../store/types.js";
import type { UsageReading } from "../wire/shape.js";
import { DEPLOYMENT_LIFETIME, stepDeploymentLifetime } from "./deployment-lifetime.js";
import {
  cacheLifetime,
  type LifetimeEvidence,
  lifetimeBounds,
  lifetimeEvidence,
  stepLifetime,
} from "./lifetime.js";
import type { CacheObservation, CachePrediction, ObservationWrite } from "./observation.js";
import { MIN_CACHEABLE_TOKENS, type ServedUsage, servedHit } from "./usage.js";
import { type TappedBody, tapUsage } from "./usage-tap.js";

/** Hooks an observer calls as it records; metrics subscribe to them. All optional. */
export interface CacheObserverEvents {
  /** One response's served cache, set against its prediction. */
  onObserved?(observation: CacheObservation): void;
  /** An observation moved a learned lifetime (the session's; the deployment's follows). */
  onLifetimeStep?(evidence: LifetimeEvidence): void;
  /** The deployment's learned lifetime (ms) as the store holds it after a write. */
  onDeploymentLifetime?(ms: number): void;
  /**
   * A successful response whose body carried no usage the service could read; `format` names its
   * usage (WireShape.usage.format).
   */
  onUnreported?(format: string): void;
}

export interface CacheObserverDeps {
  readonly config: Pick<CacheConfig, "ttl_seconds">;
  readonly store: Store;
  readonly events?: CacheObserverEvents | undefined;
}

/**
 * Observed cache state (§4a): where the service sees the model's response, what the server
 * served from its prompt cache is set against what the compaction predicted, recorded in the
 * session's ledger, and learned from (cache/lifetime.ts). Recording happens after the response,
 * never holds its bytes, and a store that fails only loses the observation.
 */
export class CacheObserver {
  constructor(private readonly deps: CacheObserverDeps) {}

  /**
   * `body` exactly as the client gets it; once it has been read to its end, the usage it carried
   * (as `usage` reads it) is recorded for `session` against `prediction` (nothing without a
   * prediction).
   */
  observeBody(
    body: TappedBody,
    usage: UsageReading,
    session: string,
    prediction: CachePrediction | undefined,
  ): TappedBody {
    if (prediction === undefined) return body;
    return tapUsage(body, usage, (served) => {
      if (served === undefined) this.deps.events?.onUnreported?.(usage.format);
      else void this.record(session, prediction, served);
    });
  }

  /**
   * Records one response's served cache (as its wire shape's `usage.served` reads it); resolves
   * once written, never rejects.
   */
  async record(session: string, prediction: CachePrediction, served: ServedUsage): Promise<void> {
    const { config, store, events } = this.deps;
    const hit = servedHit(served, prediction.previousInputTokens);
    const { idleMs, expectedHit } = prediction;
    const observation: CacheObservation = {
      at: prediction.at,
      idleMs,
      predicted: expectedHit ? "hit" : "miss",
      observed: hit ? "hit" : "miss",
      cachedTokens: served.cachedTokens,
      inputTokens: served.inputTokens,
    };
    events?.onObserved?.(observation);
    const current = cacheLifetime(config, prediction.learned).ms;
    // A prefix too short to be cached, or a first request, says nothing about the lifetime.
    const cacheable =
      (prediction.previousInputTokens ?? served.inputTokens) >= MIN_CACHEABLE_TOKENS;
    const evidence =
      idleMs === undefined || !cacheable
        ? undefined
        : lifetimeEvidence({ expectedHit, hit, idleMs }, current);
    const bounds = lifetimeBounds(config);
    const write: ObservationWrite = {
      observation,
      sessionLifetimeMs: evidence ? stepLifetime(current, evidence, 1, bounds) : undefined,
    };
    if (evidence) events?.onLifetimeStep?.(evidence);
    try {
      // The session's record and the deployment's lifetime side by side: one round trip, two
      // when another replica stepped the lifetime since this request read it.
      const [, deployment] = await Promise.all([
        store.observe(session, write),
        evidence
          ? stepDeploymentLifetime(store, evidence, bounds, prediction.learned?.deployment)
          : store.sharedNumber(DEPLOYMENT_LIFETIME),
      ]);
      if (deployment !== undefined) events?.onDeploymentLifetime?.(deployment);
    } catch {
      // Counted by the store's error metric; the answer was already given.
    }
  }
}
