import { describe, expect, it } from "vitest";
import type { CompactResult } from "../../src/compact/compactor.js";
import { Metrics } from "../../src/observability/metrics.js";
import type { ComponentReport } from "../../src/pipeline/report.js";
import { newEntry } from "../../src/pipeline/report-entries.js";
import { sample } from "./prometheus-text.js";

function entry(
  name: "summarize" | "extract_llm",
  modelCalls: ComponentReport["modelCalls"],
): ComponentReport {
  return { ...newEntry(name, "offload", "off"), ...(modelCalls ? { modelCalls } : {}) };
}

const result: CompactResult = {
  text: "{}",
  changed: false,
  provider: "openai",
  session: "s",
  tokensBefore: 10,
  tokensAfter: 10,
  markers: 0,
  markerIds: [],
  cache: { state: "warm", reason: "recent" },
  replayed: 0,
  pipelineFallback: false,
  report: {
    components: [
      entry("summarize", [
        {
          model: "m",
          outcome: "accepted",
          durationMs: 300,
          attempts: 1,
          inputTokens: 900,
          outputTokens: 80,
        },
      ]),
      entry("extract_llm", [
        {
          model: "m",
          outcome: "rejected",
          reason: "x",
          durationMs: 20,
          attempts: 1,
          inputTokens: 50,
        },
        { model: "m", outcome: "failed", reason: "timeout", durationMs: 8000, attempts: 2 },
        { model: "", outcome: "skipped", reason: "no model", durationMs: 0, attempts: 0 },
      ]),
    ],
  },
};

describe("model call metrics", () => {
  const metrics = new Metrics({ processMetrics: false });
  metrics.observeCompact(result);

  it.each<[string, Record<string, string>, number]>([
    ["cg_model_calls_total", { component: "summarize", outcome: "accepted" }, 1],
    ["cg_model_calls_total", { component: "extract_llm", outcome: "rejected" }, 1],
    ["cg_model_calls_total", { component: "extract_llm", outcome: "failed" }, 1],
    ["cg_model_calls_total", { component: "extract_llm", outcome: "skipped" }, 1],
    ["cg_model_tokens_total", { component: "summarize", direction: "input" }, 900],
    ["cg_model_tokens_total", { component: "summarize", direction: "output" }, 80],
    ["cg_model_tokens_total", { component: "extract_llm", direction: "input" }, 50],
    ["cg_model_call_duration_seconds_count", { component: "extract_llm" }, 2],
    ["cg_model_call_duration_seconds_sum", { component: "summarize" }, 0.3],
  ])("%s %o = %d", async (name, labels, expected) => {
    expect(sample(await metrics.render(), name, labels)).toBe(expected);
  });
});
