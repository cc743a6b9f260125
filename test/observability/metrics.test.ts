import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { httpMetrics } from "../../src/observability/http-metrics.js";
import { Metrics } from "../../src/observability/metrics.js";
import { metricsRoute } from "../../src/routes/metrics.js";
import type { Store, StoreStats } from "../../src/store/types.js";
import { sample } from "./prometheus-text.js";

function fakeStore(stats: () => Promise<StoreStats>): Store {
  return {
    backend: "memory",
    persists: true,
    put: async () => {},
    get: async () => undefined,
    sticky: async () => new Set(),
    addSticky: async () => {},
    ready: async () => true,
    stats,
    close: async () => {},
  };
}

describe("Metrics.observeRun", () => {
  const metrics = new Metrics({ processMetrics: false });
  metrics.observeRun({
    tokensBefore: 1000,
    tokensAfter: 700,
    components: [
      { name: "format", tokensBefore: 1000, tokensAfter: 900, markers: 0 },
      { name: "mask", tokensBefore: 900, tokensAfter: 700, markers: 2 },
      { name: "dedup", tokensBefore: 700, tokensAfter: 650, markers: 1, reverted: "store_error" },
    ],
  });

  it.each([
    ["cg_request_tokens_before_total", {}, 1000],
    ["cg_request_tokens_after_total", {}, 700],
    ["cg_component_tokens_before_total", { component: "format" }, 1000],
    ["cg_component_tokens_after_total", { component: "format" }, 900],
    ["cg_component_tokens_saved_total", { component: "format" }, 100],
    ["cg_component_tokens_saved_total", { component: "mask" }, 200],
    ["cg_markers_written_total", { component: "mask" }, 2],
    // A reverted component kept nothing: after = before, nothing saved, no markers.
    ["cg_component_tokens_after_total", { component: "dedup" }, 700],
    ["cg_component_tokens_saved_total", { component: "dedup" }, 0],
    ["cg_markers_written_total", { component: "dedup" }, 0],
    ["cg_component_reverts_total", { component: "dedup", reason: "store_error" }, 1],
    // Components that never ran are exported at zero.
    ["cg_component_tokens_saved_total", { component: "collapse" }, 0],
  ])("%s %o = %d", async (name, labels, expected) => {
    expect(sample(await metrics.render(), name, labels)).toBe(expected);
  });
});

describe("expand, store and proxy counters", () => {
  it("count what the loop and routes report", async () => {
    const metrics = new Metrics({ processMetrics: false });
    metrics.expandResolved("loop", 3);
    metrics.expandResolved("route");
    metrics.expandMissed("loop", 2);
    metrics.expandMissed("loop", 0);
    metrics.expandBailed("other_tool");
    metrics.expandRound();
    metrics.expandRound();
    metrics.storeError("put");
    metrics.proxyResponse("anthropic", "streamed");
    const text = await metrics.render();
    expect([
      sample(text, "cg_expand_resolutions_total", { via: "loop" }),
      sample(text, "cg_expand_resolutions_total", { via: "route" }),
      sample(text, "cg_expand_misses_total", { via: "loop" }),
      sample(text, "cg_expand_misses_total", { via: "route" }),
      sample(text, "cg_expand_bails_total", { reason: "other_tool" }),
      sample(text, "cg_expand_bails_total", { reason: "max_rounds" }),
      sample(text, "cg_expand_rounds_total"),
      sample(text, "cg_store_errors_total", { operation: "put" }),
      sample(text, "cg_proxy_responses_total", { provider: "anthropic", delivery: "streamed" }),
      sample(text, "cg_proxy_responses_total", { provider: "openai", delivery: "buffered" }),
    ]).toEqual([3, 1, 2, 0, 1, 0, 2, 1, 1, 0]);
  });

  it("keeps each instance on its own registry", async () => {
    const first = new Metrics();
    const second = new Metrics();
    first.expandRound();
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
