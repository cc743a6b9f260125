import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { CompactResult } from "../../src/compact/compactor.js";
import { httpMetrics } from "../../src/observability/http-metrics.js";
import { Metrics } from "../../src/observability/metrics.js";
import type { ComponentReport, RunReport } from "../../src/pipeline/report.js";
import { metricsRoute } from "../../src/routes/metrics.js";
import { EMPTY_LEDGER } from "../../src/session/ledger.js";
import type { Store, StoreStats } from "../../src/store/types.js";
import { sample } from "./prometheus-text.js";

function fakeStore(stats: () => Promise<StoreStats>): Store {
  return {
    backend: "memory",
    persists: true,
    put: async () => {},
    get: async () => undefined,
    ledger: async () => EMPTY_LEDGER,
    keep: async () => {},
    observe: async () => undefined,
    sharedNumber: async () => undefined,
    swapSharedNumber: async () => ({ swapped: false, current: undefined }),
    ready: async () => true,
    stats,
    close: async () => {},
  };
}

function report(
  components: ReadonlyArray<Partial<ComponentReport> & Pick<ComponentReport, "name">>,
  stashFailure?: string,
): RunReport {
  return {
    components: components.map((component) => ({
      kind: "offload",
      mode: "full",
      tokensBefore: 0,
      tokensAfter: 0,
      durationMs: 1,
      changed: 0,
      dropped: 0,
      keys: [],
      ...component,
    })),
    ...(stashFailure === undefined ? {} : { stashFailure }),
  };
}

function result(overrides: Partial<CompactResult>): CompactResult {
  return {
    text: "{}",
    changed: true,
    provider: "openai",
    session: "s1",
    tokensBefore: 0,
    tokensAfter: 0,
    markers: 0,
    markerIds: [],
    cache: { state: "warm", reason: "recent" },
    replayed: 0,
    pipelineFallback: false,
    ...overrides,
  };
}

describe("Metrics.observeCompact", () => {
  const metrics = new Metrics({ processMetrics: false });
  metrics.observeCompact(
    result({
      tokensBefore: 1000,
      tokensAfter: 700,
      report: report([
        { name: "format", kind: "reformat", tokensBefore: 400, tokensAfter: 300 },
        { name: "mask", tokensBefore: 250, tokensAfter: 50, keys: ["a1", "b2"] },
        {
          name: "dedup",
          tokensBefore: 120,
          tokensAfter: 20,
          keys: ["c3"],
          reverted: { reason: "grew", detail: "" },
        },
        { name: "extract", gated: "min_request_tokens" },
      ]),
    }),
  );
  metrics.observeCompact(
    result({
      tokensBefore: 500,
      tokensAfter: 500,
      changed: false,
      report: report(
        [{ name: "collapse", tokensBefore: 300, tokensAfter: 30, keys: ["d4"] }],
        "timeout",
      ),
    }),
  );
  metrics.observeCompact(result({ changed: false, passthrough: "not_json" }));

  it.each([
    ["cg_request_tokens_before_total", {}, 1500],
    ["cg_request_tokens_after_total", {}, 1200],
    ["cg_component_tokens_before_total", { component: "format" }, 400],
    ["cg_component_tokens_after_total", { component: "format" }, 300],
    ["cg_component_tokens_saved_total", { component: "format" }, 100],
    ["cg_component_tokens_saved_total", { component: "mask" }, 200],
    ["cg_markers_written_total", { component: "mask" }, 2],
    ["cg_markers_written_total", { component: "format" }, 0],
    // A reverted component kept nothing: after = before, nothing saved, no markers.
    ["cg_component_tokens_after_total", { component: "dedup" }, 120],
    ["cg_component_tokens_saved_total", { component: "dedup" }, 0],
    ["cg_markers_written_total", { component: "dedup" }, 0],
    ["cg_component_reverts_total", { component: "dedup", reason: "grew" }, 1],
    // A failed stash reverts every change of the run.
    ["cg_component_tokens_saved_total", { component: "collapse" }, 0],
    ["cg_markers_written_total", { component: "collapse" }, 0],
    ["cg_component_reverts_total", { component: "collapse", reason: "stash_failed" }, 1],
    ["cg_component_gated_total", { component: "extract", reason: "min_request_tokens" }, 1],
    ["cg_compact_passthrough_total", { reason: "not_json" }, 1],
    // Components that never ran are exported at zero.
    ["cg_component_tokens_saved_total", { component: "smartcrush" }, 0],
  ])("%s %o = %d", async (name, labels, expected) => {
    expect(sample(await metrics.render(), name, labels)).toBe(expected);
  });
});

describe("proxy events and store errors", () => {
  it("count what the expand loop reports", async () => {
    const metrics = new Metrics({ processMetrics: false });
    const events = metrics.proxyEvents();
    events.onResolved?.();
    events.onResolved?.();
    events.onResolved?.();
    events.onMiss?.();
    events.onBail?.("other_tool");
    events.onRound?.();
    events.onRound?.();
    events.onResponse?.({ provider: "anthropic", streamed: true });
    events.onResponse?.({ provider: "openai", streamed: false });
    metrics.storeError("put");
    const text = await metrics.render();
    expect([
      sample(text, "cg_expand_resolutions_total"),
      sample(text, "cg_expand_misses_total"),
      sample(text, "cg_expand_bails_total", { reason: "other_tool" }),
      sample(text, "cg_expand_bails_total", { reason: "max_rounds" }),
      sample(text, "cg_expand_rounds_total"),
      sample(text, "cg_store_errors_total", { operation: "put" }),
      sample(text, "cg_store_errors_total", { operation: "get" }),
      sample(text, "cg_proxy_responses_total", { provider: "anthropic", delivery: "streamed" }),
      sample(text, "cg_proxy_responses_total", { provider: "openai", delivery: "buffered" }),
      sample(text, "cg_proxy_responses_total", { provider: "openai", delivery: "streamed" }),
    ]).toEqual([3, 1, 1, 0, 2, 1, 0, 1, 1, 0]);
  });

  it("keeps each instance on its own registry", async () => {
    const first = new Metrics();
    const second = new Metrics();
    first.proxyEvents().onRound?.();
    expect(sample(await first.render(), "cg_expand_rounds_total")).toBe(1);
    expect(sample(await second.render(), "cg_expand_rounds_total")).toBe(0);
    expect(sample(await first.render(), "process_cpu_user_seconds_total")).toBeGreaterThanOrEqual(
      0,
    );
  });
});

describe("store gauges", () => {
  it("read the store's size at each scrape", async () => {
    let stats: StoreStats = { entries: 3, bytes: 4096 };
    const metrics = new Metrics({ processMetrics: false, store: fakeStore(async () => stats) });
    const first = await metrics.render();
    stats = { entries: 5, bytes: 9000 };
    const second = await metrics.render();
    expect([
      sample(first, "cg_store_entries", { backend: "memory" }),
      sample(first, "cg_store_bytes", { backend: "memory" }),
      sample(second, "cg_store_entries", { backend: "memory" }),
      sample(second, "cg_store_bytes", { backend: "memory" }),
    ]).toEqual([3, 4096, 5, 9000]);
  });

  it("count one store error per failed scrape and drop the stale size", async () => {
    let fail = false;
    let calls = 0;
    const store = fakeStore(async () => {
      calls += 1;
      if (fail) throw new Error("connection refused");
      return { entries: 2, bytes: 10 };
    });
    const metrics = new Metrics({ processMetrics: false, store });
    await metrics.render();
    fail = true;
    const text = await metrics.render();
    expect(calls).toBe(2);
    expect(sample(text, "cg_store_entries", { backend: "memory" })).toBeUndefined();
    expect(sample(text, "cg_store_errors_total", { operation: "stats" })).toBe(1);
  });
});

describe("GET /metrics with the request middleware", () => {
  const metrics = new Metrics({ processMetrics: false });
  const app = new Hono();
  app.use(httpMetrics(metrics));
  app.get("/items/:id", (context) => context.json({ id: context.req.param("id") }));
  app.post("/fail", (context) => context.json({ error: "bad" }, 400));
  app.route("/", metricsRoute(metrics));

  it("labels by route pattern and status, and the values move", async () => {
    const before = await (await app.request("/metrics")).text();
    await app.request("/items/1");
    await app.request("/items/2");
    await app.request("/fail", { method: "POST" });
    await app.request("/nowhere");
    const response = await app.request("/metrics");
    const after = await response.text();
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const labels = { route: "/items/:id", method: "GET", status: "200" };
    expect(sample(before, "cg_http_requests_total", labels)).toBeUndefined();
    expect(sample(after, "cg_http_requests_total", labels)).toBe(2);
    expect(
      sample(after, "cg_http_requests_total", { route: "/fail", method: "POST", status: "400" }),
    ).toBe(1);
    expect(
      sample(after, "cg_http_requests_total", { route: "unmatched", method: "GET", status: "404" }),
    ).toBe(1);
    expect(
      sample(after, "cg_http_requests_total", { route: "/metrics", method: "GET", status: "200" }),
    ).toBe(1);
    expect(sample(after, "cg_http_request_duration_seconds_count", { route: "/items/:id" })).toBe(
      2,
    );
    expect(after).not.toContain("/items/1");
  });
});
