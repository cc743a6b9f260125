import { describe, expect, it } from "vitest";
import type { CompactResult } from "../../src/compact/compactor.js";
import { Metrics } from "../../src/observability/metrics.js";
import { replayRecorded } from "../support/recorded-session.js";
import { hasSharedCorpus } from "../support/shared-corpus.js";
import { sample } from "./prometheus-text.js";

async function scrape(results: readonly CompactResult[]): Promise<string> {
  const metrics = new Metrics({ processMetrics: false });
  for (const result of results) metrics.observeCompact(result);
  return metrics.render();
}

const priced = (results: readonly CompactResult[]) =>
  results.filter((result) => result.cache.reason === "priced");

describe("metrics of priced breaks (§4a)", () => {
  it("count each break and its estimated net saving under the prices it was judged by", async () => {
    const metrics = new Metrics({ processMetrics: false });
    const base: CompactResult = {
      text: "{}",
      changed: true,
      provider: "anthropic",
      session: "s1",
      tokensBefore: 9_000,
      tokensAfter: 3_000,
      markers: 0,
      markerIds: [],
      cache: { state: "cold", reason: "priced" },
      replayed: 0,
      pipelineFallback: false,
    };
    metrics.observeCompact({ ...base, pricedBreak: { pricing: "anthropic", netSaving: 1_250.5 } });
    metrics.observeCompact({ ...base, pricedBreak: { pricing: "anthropic", netSaving: 749.5 } });
    metrics.observeCompact({ ...base, pricedBreak: { pricing: "vllm", netSaving: 300 } });
    metrics.observeCompact({ ...base, cache: { state: "warm", reason: "recent" } });
    const text = await metrics.render();
    const breaks = (pricing: string) => sample(text, "cg_cache_priced_breaks_total", { pricing });
    const saving = (pricing: string) =>
      sample(text, "cg_cache_priced_break_saving_tokens_total", { pricing });
    expect([breaks("anthropic"), breaks("vllm"), breaks("openai"), breaks("custom")]).toEqual([
      2, 1, 0, 0,
    ]);
    expect([saving("anthropic"), saving("vllm"), saving("openai")]).toEqual([2_000, 300, 0]);
  });

  describe.skipIf(!hasSharedCorpus)("on a recorded session", () => {
    it("every priced break carries its pricing and a positive net saving, and only those", async () => {
      for (const [file, pricing] of [
        ["s0-t049-openai.json", "openai"],
        ["s0-t049-anthropic.json", "anthropic"],
      ] as const) {
        const results = await replayRecorded(file);
        const breaks = priced(results);
        expect(breaks.length).toBeGreaterThan(0);
        for (const result of results) {
          if (result.cache.reason !== "priced") expect(result.pricedBreak).toBeUndefined();
          else {
            expect(result.pricedBreak?.pricing).toBe(pricing);
            expect(result.pricedBreak?.netSaving).toBeGreaterThan(0);
          }
        }
        const text = await scrape(results);
        const total = breaks.reduce((sum, result) => sum + (result.pricedBreak?.netSaving ?? 0), 0);
        expect(sample(text, "cg_cache_priced_breaks_total", { pricing })).toBe(breaks.length);
        expect(sample(text, "cg_cache_priced_break_saving_tokens_total", { pricing })).toBeCloseTo(
          total,
          6,
        );
      }
    }, 120_000);

    it("explicit prices are labelled custom, and prefill-only never breaks", async () => {
      const custom = await replayRecorded("s0-t049-openai.json", {
        pricing: { read: 0.1, write: 1 },
      });
      expect(priced(custom).length).toBeGreaterThan(0);
      const customText = await scrape(custom);
      expect(sample(customText, "cg_cache_priced_breaks_total", { pricing: "custom" })).toBe(
        priced(custom).length,
      );
      expect(sample(customText, "cg_cache_priced_breaks_total", { pricing: "openai" })).toBe(0);
      const frozen = await replayRecorded("s0-t049-openai.json", { pricing: "prefill-only" });
      const frozenText = await scrape(frozen);
      for (const pricing of ["anthropic", "openai", "vllm", "custom"]) {
        expect(sample(frozenText, "cg_cache_priced_breaks_total", { pricing })).toBe(0);
        expect(sample(frozenText, "cg_cache_priced_break_saving_tokens_total", { pricing })).toBe(
          0,
        );
      }
    }, 120_000);
  });
});
