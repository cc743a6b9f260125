import { describe, expect, it } from "vitest";
import {
  cacheLifetime,
  lifetimeBounds,
  lifetimeEvidence,
  stepLifetime,
} from "../../src/cache/lifetime.js";

const bounds = lifetimeBounds({ ttl_seconds: 300 });

describe("learned cache lifetime", () => {
  it("is bounded by a tenth and twelve times the TTL", () => {
    expect(bounds).toEqual({ priorMs: 300_000, minMs: 30_000, maxMs: 3_600_000 });
  });

  it.each([
    {
      name: "an expected hit that missed",
      expectedHit: true,
      hit: false,
      idleMs: 120_000,
      evidence: { step: "shorten", targetMs: 108_000 },
    },
    {
      name: "a miss past the lifetime",
      expectedHit: true,
      hit: false,
      idleMs: 301_000,
      evidence: undefined,
    },
    {
      name: "a miss that was predicted",
      expectedHit: false,
      hit: false,
      idleMs: 120_000,
      evidence: undefined,
    },
    {
      name: "a hit after a long idle",
      expectedHit: false,
      hit: true,
      idleMs: 400_000,
      evidence: { step: "lengthen", targetMs: 500_000 },
    },
    {
      name: "a hit just under the lifetime",
      expectedHit: true,
      hit: true,
      idleMs: 280_000,
      evidence: { step: "lengthen", targetMs: 350_000 },
    },
    {
      name: "a hit after a short idle",
      expectedHit: true,
      hit: true,
      idleMs: 10_000,
      evidence: undefined,
    },
  ] as const)("$name", ({ expectedHit, hit, idleMs, evidence }) => {
    expect(lifetimeEvidence({ expectedHit, hit, idleMs }, 300_000)).toEqual(evidence);
  });

  it.each([
    { current: 300_000, step: "shorten", targetMs: 108_000, weight: 1, next: 108_000 },
    { current: 300_000, step: "shorten", targetMs: 108_000, weight: 0.25, next: 252_000 },
    { current: 300_000, step: "shorten", targetMs: 2_700, weight: 1, next: 30_000 },
    { current: 90_000, step: "shorten", targetMs: 108_000, weight: 1, next: 90_000 },
    { current: 300_000, step: "lengthen", targetMs: 500_000, weight: 0.25, next: 350_000 },
    { current: 600_000, step: "lengthen", targetMs: 500_000, weight: 1, next: 600_000 },
    { current: 3_000_000, step: "lengthen", targetMs: 9_000_000, weight: 1, next: 3_600_000 },
  ] as const)(
    "$step $current towards $targetMs by $weight: $next",
    ({ current, step, targetMs, weight, next }) => {
      expect(stepLifetime(current, { step, targetMs }, weight, bounds)).toBe(next);
    },
  );

  it("reads the session's lifetime, else the deployment's, else the TTL", () => {
    const config = { ttl_seconds: 300 };
    expect([
      cacheLifetime(config, undefined),
      cacheLifetime(config, { session: undefined, deployment: 200_000 }),
      cacheLifetime(config, { session: 100_000, deployment: 200_000 }),
    ]).toEqual([
      { ms: 300_000, learned: false },
      { ms: 200_000, learned: true },
      { ms: 100_000, learned: true },
    ]);
  });
});
