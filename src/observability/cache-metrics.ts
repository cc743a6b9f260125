import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { CacheObserverEvents } from "../cache/observed.js";
import { SHAPES } from "../wire/registry.js";

/** Idle times (seconds) the observed hits and misses are bucketed by. */
const idleBuckets = [1, 5, 15, 30, 60, 120, 180, 240, 300, 450, 600, 900, 1800, 3600];

/**
 * The series of the observed cache state (§4a): what the compaction predicted against what the
 * server served, the idle times behind them, how the learned lifetime moved and where it stands,
 * and responses that reported no usage (nothing to learn from).
 */
export function cacheObservationMetrics(registry: Registry): CacheObserverEvents {
  const registers = [registry];
  const observed = new Counter({
    name: "cg_cache_observed_total",
    help: "Proxied responses whose served prompt cache was read, by what the compaction predicted (hit: treated warm with its prefix kept) and what the server served (hit: at least half the previous prompt read from cache).",
    labelNames: ["predicted", "observed"],
    registers,
  });
  const idle = new Histogram({
    name: "cg_cache_observed_idle_seconds",
    help: "Idle time since the session's previous request, of observed responses, by what the server served.",
    labelNames: ["observed"],
    buckets: idleBuckets,
    registers,
  });
  const steps = new Counter({
    name: "cg_cache_lifetime_steps_total",
    help: "Observations that moved a learned cache lifetime: shorten (a miss the service did not expect), lengthen (a hit after an idle longer than the lifetime).",
    labelNames: ["step"],
    registers,
  });
  const lifetime = new Gauge({
    name: "cg_cache_learned_lifetime_seconds",
    help: "The deployment's learned prompt-cache lifetime (prior: cache.ttl_seconds), as last written; sessions with evidence of their own use theirs.",
    registers,
  });
  const unreported = new Counter({
    name: "cg_cache_usage_unreported_total",
    help: "Successful proxied responses read whole that carried no prompt-token usage, by format.",
    labelNames: ["format"],
    registers,
  });
  for (const predicted of ["hit", "miss"]) {
    for (const served of ["hit", "miss"]) observed.inc({ predicted, observed: served }, 0);
  }
  for (const step of ["shorten", "lengthen"]) steps.inc({ step }, 0);
  for (const { usage } of SHAPES) unreported.inc({ format: usage.format }, 0);
  return {
    onObserved: (observation) => {
      observed.inc({ predicted: observation.predicted, observed: observation.observed });
      if (observation.idleMs !== undefined) {
        idle.observe({ observed: observation.observed }, observation.idleMs / 1000);
      }
    },
    onLifetimeStep: (evidence) => steps.inc({ step: evidence.step }),
    onDeploymentLifetime: (ms) => lifetime.set(ms / 1000),
    onUnreported: (format) => unreported.inc({ format }),
  };
}
