import { describe, expect, it } from "vitest";
import { DEPLOYMENT_LIFETIME } from "../../src/cache/deployment-lifetime.js";
import type { LifetimeEvidence } from "../../src/cache/lifetime.js";
import type {
  CacheObservation,
  CachePrediction,
  ObservationWrite,
} from "../../src/cache/observation.js";
import { CacheObserver } from "../../src/cache/observed.js";
import { storeSchema } from "../../src/config/schema.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { Store } from "../../src/store/types.js";

const prediction = (overrides: Partial<CachePrediction> = {}): CachePrediction => ({
  at: 1_000_000,
  idleMs: 120_000,
  expectedHit: true,
  previousInputTokens: 4000,
  learned: undefined,
  ...overrides,
});

/** An observer over `store` with every hook recorded. */
function observe(store: Store) {
  const seen: { observed: CacheObservation[]; steps: LifetimeEvidence[]; deployment: number[] } = {
    observed: [],
    steps: [],
    deployment: [],
  };
  const observer = new CacheObserver({
    config: { ttl_seconds: 300 },
    store,
    events: {
      onObserved: (observation) => seen.observed.push(observation),
      onLifetimeStep: (evidence) => seen.steps.push(evidence),
      onDeploymentLifetime: (ms) => seen.deployment.push(ms),
    },
  });
  return { observer, seen };
}

describe("CacheObserver.record", () => {
  it("a session without evidence of its own steps from the deployment's lifetime", async () => {
    const store = new MemoryStore(storeSchema.parse({}));
    const { observer, seen } = observe(store);
    const learned = { session: undefined, deployment: 200_000 };
    await observer.record("s", prediction({ learned }), { cachedTokens: 64, inputTokens: 4400 });
    expect({
      seen,
      learned: (await store.ledger("s")).learned,
      deployment: await store.sharedNumber(DEPLOYMENT_LIFETIME),
    }).toEqual({
      seen: {
        observed: [
          {
            at: 1_000_000,
            idleMs: 120_000,
            predicted: "hit",
            observed: "miss",
            cachedTokens: 64,
            inputTokens: 4400,
          },
        ],
        steps: [{ step: "shorten", targetMs: 108_000 }],
        // This store's deployment lifetime started from the prior, 300 s.
        deployment: [252_000],
      },
      learned: { session: 108_000, deployment: undefined },
      deployment: 252_000,
    });
  });

  it("steps the deployment's lifetime from what the store holds when another step came first", async () => {
    const store = new MemoryStore(storeSchema.parse({}));
    const { observer, seen } = observe(store);
    // Another session's miss moved it to 252 s after this request read it unset.
    await store.swapSharedNumber(DEPLOYMENT_LIFETIME, undefined, 252_000, 60_000);
    await observer.record("s", prediction(), { cachedTokens: 64, inputTokens: 4400 });
    // 252 s a quarter of the way to 108 s: both steps applied, neither lost.
    expect([seen.deployment, await store.sharedNumber(DEPLOYMENT_LIFETIME)]).toEqual([
      [216_000],
      216_000,
    ]);
  });

  it("the first request of a session teaches nothing about the lifetime", async () => {
    const store = new MemoryStore(storeSchema.parse({}));
    const { observer, seen } = observe(store);
    await observer.record("s", prediction({ idleMs: undefined, expectedHit: false }), {
      cachedTokens: 0,
      inputTokens: 900,
    });
    const ledger = await store.ledger("s");
    expect([seen.steps, seen.deployment, ledger.learned, ledger.observed?.inputTokens]).toEqual([
      [],
      [],
      undefined,
      900,
    ]);
  });

  it("a miss on a prompt too short to be cached teaches nothing", async () => {
    const store = new MemoryStore(storeSchema.parse({}));
    const { observer, seen } = observe(store);
    await observer.record("s", prediction({ previousInputTokens: 1000 }), {
      cachedTokens: 0,
      inputTokens: 1100,
    });
    const ledger = await store.ledger("s");
    expect([seen.steps, ledger.learned, ledger.observed?.observed]).toEqual([
      [],
      undefined,
      "miss",
    ]);
  });

  it("a store that fails the write loses the observation, never rejects", async () => {
    const writes: ObservationWrite[] = [];
    const failing = {
      observe: async (_session: string, write: ObservationWrite) => {
        writes.push(write);
        throw new Error("store down");
      },
    } as unknown as Store;
    const { observer, seen } = observe(failing);
    await expect(
      observer.record("s", prediction(), { cachedTokens: 0, inputTokens: 4400 }),
    ).resolves.toBeUndefined();
    expect([writes.map((write) => write.sessionLifetimeMs), seen.deployment]).toEqual([
      [108_000],
      [],
    ]);
  });
});
