import { describe, expect, it } from "vitest";
import {
  type BreakContext,
  type HeadEstimate,
  idleWithin,
  MIN_TURNS,
  nextHistory,
  priceBreak,
  warmRunLeft,
} from "../../src/cache/break-decision.js";
import { headEvent, headEventPossible } from "../../src/cache/head-decision.js";
import { OPENAI_PRICING, PREFILL_ONLY_PRICING } from "../../src/cache/pricing.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConversationCost } from "../../src/session/ledger.js";

const SPACING_MS = 20_000;

/**
 * A conversation's history after `colds` (1-based request numbers) of `turns` met a cold cache,
 * each request returned a tenth smaller than received.
 */
function history(
  turns: number,
  colds: readonly number[],
  spacingMs = SPACING_MS,
): ConversationCost {
  let cost: ConversationCost | undefined;
  for (let turn = 1; turn <= turns; turn++) {
    const cold = colds.includes(turn);
    cost = nextHistory(OPENAI_PRICING, cost, {
      now: turn * spacingMs,
      received: 1_000 * turn,
      returned: 900 * turn,
      kept: cold ? 0 : 900 * (turn - 1),
      warm: !cold && turn > 1,
      cold,
      broke: false,
    });
  }
  if (!cost) throw new Error("no turns");
  return cost;
}

function context(cost: ConversationCost, spacingMs = SPACING_MS): BreakContext {
  const previousAt = cost.turns * spacingMs;
  return {
    pricing: OPENAI_PRICING,
    history: cost,
    previousAt,
    now: previousAt + SPACING_MS,
    lifetimeMs: 300_000,
    received: cost.before + 1_000,
  };
}

/** A break clearing half of a 20,000-token request, changing it from its middle on. */
const estimate: HeadEstimate = { tokens: 20_000, cleared: 10_000, suffix: 12_000 };

describe("the warm runs between cold requests (§4a)", () => {
  it("places each cold request and counts the warm runs they end", () => {
    const cost = history(25, [1, 10, 20]);
    expect(cost).toMatchObject({ colds: 3, lastCold: 20, warmRuns: 2, warmRunTurns: 8 + 9 });
    // 8.5 warm requests a run; the next request is the 6th after the cold one: 2 left after it.
    expect(warmRunLeft(cost)).toBe(2);
    expect(warmRunLeft(history(21, [1, 10, 20]))).toBe(6);
  });

  it("leaves the horizon open until a warm run has ended in a cold request", () => {
    expect(warmRunLeft(history(25, []))).toBe(Number.POSITIVE_INFINITY);
    expect(warmRunLeft(history(25, [1]))).toBe(Number.POSITIVE_INFINITY);
  });

  it("a break late in a warm run, when the next cold request is near, does not pay", () => {
    // Early in the run the same break pays; two requests before the usual cold one it does not.
    expect(priceBreak(context(history(23, [1, 10, 20])), estimate).pays).toBe(true);
    expect(priceBreak(context(history(26, [1, 10, 20])), estimate).pays).toBe(false);
    // Without cold requests to say otherwise, the same position pays.
    expect(priceBreak(context(history(26, [1])), estimate).pays).toBe(true);
  });
});

describe("a break right after a cold request or another break (§4a)", () => {
  it("is not priced until MIN_WARM_RUN requests have passed", () => {
    expect(priceBreak(context(history(21, [1, 10, 20])), estimate).pays).toBe(false);
    expect(priceBreak(context(history(23, [1, 10, 20])), estimate).pays).toBe(true);
  });

  it("counts a break of its own as the latest clearing", () => {
    let cost = history(18, [1]);
    cost = nextHistory(OPENAI_PRICING, cost, {
      now: 19 * SPACING_MS,
      received: 19_000,
      returned: 9_000,
      kept: 8_000,
      warm: true,
      cold: false,
      broke: true,
    });
    expect(cost).toMatchObject({ turns: 19, lastBreak: 19, lastCold: 1 });
    expect(priceBreak(context(cost), estimate).pays).toBe(false);
  });
});

describe("the turns a break is expected to repay itself over (§4a)", () => {
  // 4,000 of 12,000 tokens cleared, re-writing 6,500: worth it over about nine warm turns.
  const modest: HeadEstimate = { tokens: 12_000, cleared: 4_000, suffix: 6_500 };

  it("a conversation of twelve requests is expected to go on about as long again", () => {
    expect(priceBreak(context(history(12, [])), modest).pays).toBe(true);
  });

  it("requests spaced near the cache's lifetime are expected to meet it cold", () => {
    // The same conversation, its requests 250 s apart (the last idle time still 20 s).
    const spaced = history(12, [], 250_000);
    const idle = { ...context(spaced, 250_000), now: spaced.turns * 250_000 + SPACING_MS };
    expect(priceBreak(idle, modest).pays).toBe(false);
  });

  it.each([
    [20_000, 300_000, 1 - Math.exp(-15)],
    [300_000, 300_000, 1 - Math.exp(-1)],
    [0, 300_000, 1],
  ])(
    "requests %i ms apart stay within a %i ms lifetime with chance %f",
    (spacing, life, chance) => {
      expect(idleWithin(spacing, life)).toBeCloseTo(chance, 9);
    },
  );
});

describe("a head event before anything is estimated (§4a)", () => {
  const { cache } = parseConfig({ cache: { context_budget_tokens: 30_000 } });
  // Estimates of every size, up to a re-decision clearing all but a placeholder.
  const estimates = [0, 1_000, 6_000, 10_000, 19_960].map((cleared) => ({
    tokens: 20_000,
    cleared,
    suffix: Math.max(cleared, 12_000),
  }));
  const long = context(history(30, [1]));
  const short = context(history(MIN_TURNS - 1, [1]));
  const free = { ...long, pricing: PREFILL_ONLY_PRICING };
  const expired = { ...long, lifetimeMs: 0 };

  it("rules one out, whatever the estimate, where no break could pay and the body is in budget", () => {
    for (const ruledOut of [short, free, expired, { ...long, history: undefined }]) {
      expect(headEventPossible(cache, ruledOut, 20_000, true)).toBe(false);
      for (const head of estimates) expect(headEvent(cache, ruledOut, head, true)).toBeUndefined();
    }
    // Where the pipeline's reach-back cannot be estimated only the budget counts.
    expect(headEventPossible(cache, long, 20_000, false)).toBe(false);
  });

  it("leaves it to the estimate where a break may pay or the body is over its budget", () => {
    expect(headEventPossible(cache, long, 20_000, true)).toBe(true);
    expect(estimates.some((head) => headEvent(cache, long, head, true) === "priced")).toBe(true);
    expect(headEventPossible(cache, short, 40_000, false)).toBe(true);
    const over = { tokens: 40_000, cleared: 30_000, suffix: 30_000 };
    expect(headEvent(cache, short, over, false)).toBe("budget");
  });
});
