import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { CacheObserverEvents } from "../cache/observed.js";
import { PRICING_NAMES } from "../cache/pricing.js";
import type { CompactResult } from "../compact/compactor.js";
import type { JobEnd, JobKind, JobThread } from "../compaction/compaction.js";
import { componentNames } from "../config/schema.js";
import type { BailReason, ProxyEvents } from "../proxy/events.js";
import type { Store } from "../store/types.js";
import { SHAPES } from "../wire/registry.js";
import { cacheObservationMetrics } from "./cache-metrics.js";
import { storeGauges } from "./store-gauges.js";

const bailReasons = Object.keys({
  other_tool: 0,
  nothing_resolved: 0,
  max_rounds: 0,
  aggregation_failed: 0,
  no_messages: 0,
  buffer_limit: 0,
  deadline: 0,
} satisfies Record<BailReason, 0>) as BailReason[];

/** Store calls whose failures are counted; `connection` is a backend's own error event. */
export const storeOperations = [
  "put",
  "get",
  "ledger",
  "keep",
  "observe",
  "sharedNumber",
  "swapSharedNumber",
  "ready",
  "stats",
  "connection",
] as const;
export type StoreOperation = (typeof storeOperations)[number];

export interface MetricsOptions {
  /** The store whose size is reported at each scrape. */
  store?: Store | undefined;
  /** Also export Node.js process metrics (CPU, memory, event loop). Default true. */
  processMetrics?: boolean;
}

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Every Prometheus series the service exports, on a registry of its own (never prom-client's
 * global one, so several apps in one process do not collide). Routes, the compactor's results
 * and the proxy loop feed it; the store's size is read at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;

  readonly #requests = this.#tally("cg_http_requests_total", "HTTP requests answered.", [
    "route",
    "method",
    "status",
  ]);
  readonly #latency = new Histogram({
    name: "cg_http_request_duration_seconds",
    help: "Time from request to response headers, by route pattern.",
    labelNames: ["route"],
    buckets: latencyBuckets,
    registers: [this.registry],
  });
  readonly #requestTokensBefore = this.#tally(
    "cg_request_tokens_before_total",
    "Message tokens of compacted request bodies before compaction.",
  );
  readonly #requestTokensAfter = this.#tally(
    "cg_request_tokens_after_total",
    "Message tokens of compacted request bodies after compaction.",
  );
  readonly #passthrough = this.#counter(
    "cg_compact_passthrough_total",
    "Bodies returned unchanged without running the pipeline, by reason.",
    ["reason"],
  );
  readonly #tokensBefore = this.#tally(
    "cg_component_tokens_before_total",
    "Tokens of the tool outputs a component changed, before its change.",
    ["component"],
  );
  readonly #tokensAfter = this.#tally(
    "cg_component_tokens_after_total",
    "Tokens of the tool outputs a component changed, after it (unchanged when reverted).",
    ["component"],
  );
  readonly #tokensSaved = this.#tally(
    "cg_component_tokens_saved_total",
    "Tokens a component removed and that stayed removed.",
    ["component"],
  );
  readonly #reverts = this.#counter(
    "cg_component_reverts_total",
    "Component runs whose changes were thrown away, by reason.",
    ["component", "reason"],
  );
  readonly #gated = this.#counter(
    "cg_component_gated_total",
    "Component runs skipped by a trigger gate or an unavailable model.",
    ["component", "reason"],
  );
  readonly #markers = this.#tally("cg_markers_written_total", "Markers written.", ["component"]);
  readonly #cacheRequests = this.#tally(
    "cg_cache_requests_total",
    "Compactions by what they were treated as (§4a): warm (recent, unknown history, header, observed) or cold (header, ttl, observed, budget, policy, priced, first, diverged).",
    ["state", "reason"],
  );
  readonly #replayed = this.#tally(
    "cg_cache_replayed_outputs_total",
    "Already-sent tool outputs given back as they were returned before (frozen replays).",
  );
  readonly #pricedBreaks = this.#counter(
    "cg_cache_priced_breaks_total",
    "Warm prefixes broken on purpose because the break pays (§4a, reason priced), by the prices they were judged by (anthropic, openai, vllm, custom; auto resolves by shape).",
    ["pricing"],
  );
  readonly #pricedSaving = this.#counter(
    "cg_cache_priced_break_saving_tokens_total",
    "Estimated net saving of priced breaks when taken, in tokens-equivalent (uncached prompt tokens): the expected saving over the session's turns to come less the re-write, by pricing.",
    ["pricing"],
  );
  readonly #degraded = this.#counter(
    "cg_markers_degraded_total",
    "Compactions whose full markers acted as off because the model could not call the expand tool, by reason.",
    ["reason"],
  );
  readonly #pieced = this.#counter(
    "cg_stash_pieced_total",
    "Originals larger than store.max_entry_bytes, kept in pieces.",
  );
  readonly #oneWay = this.#counter(
    "cg_one_way_reductions_total",
    "Outputs too big to send on, cut one-way with a visible note because the store could not keep their original, by reason (capacity: a byte bound or the session quota; unavailable: the store failed).",
    ["reason"],
  );
  readonly #bodyBuffersReused = this.#counter(
    "cg_body_buffers_reused_total",
    "Request bodies read into a buffer an earlier body was read into (memory not touched afresh).",
  );
  #inflight: () => number = () => 0;
  readonly #inflightGauge: Gauge = new Gauge({
    name: "cg_inflight_bytes",
    help: "Bytes of request bodies being compacted or rehydrated now (limits.inflight_bytes).",
    registers: [this.registry],
    collect: (): void => this.#inflightGauge.set(this.#inflight()),
  });
  readonly #jobs = this.#tally(
    "cg_compaction_jobs_total",
    "Compaction and rehydration jobs, by thread (inline or worker) and end (completed, deadline, declined, failed).",
    ["job", "thread", "end"],
  );
  readonly #modelCalls = this.#counter(
    "cg_model_calls_total",
    "Cheap-model calls of LLM-backed components: accepted, rejected (did not verify), failed, skipped (no model).",
    ["component", "outcome"],
  );
  readonly #modelTokens = this.#counter(
    "cg_model_tokens_total",
    "Tokens the cheap model reported using, by direction (input, output).",
    ["component", "direction"],
  );
  readonly #modelLatency = new Histogram({
    name: "cg_model_call_duration_seconds",
    help: "Duration of cheap-model calls (retries included) of LLM-backed components.",
    labelNames: ["component"],
    buckets: latencyBuckets,
    registers: [this.registry],
  });
  readonly #expandResolutions = this.#counter(
    "cg_expand_resolutions_total",
    "Expand ids the proxy loop resolved to their original.",
  );
  readonly #expandMisses = this.#counter(
    "cg_expand_misses_total",
    "Expand ids the proxy loop could not give back (unknown, expired, not in the request).",
  );
  readonly #expandBails = this.#counter(
    "cg_expand_bails_total",
    "Expand-calling upstream responses returned as they were, by reason.",
    ["reason"],
  );
  readonly #expandRounds = this.#counter(
    "cg_expand_rounds_total",
    "Upstream re-invocations made by the expand loop.",
  );
  readonly #proxyResponses = this.#counter(
    "cg_proxy_responses_total",
    "Proxy responses, streamed through or buffered (expand loop, or a non-streaming request).",
    ["provider", "delivery"],
  );
  readonly #storeErrors: Counter;
  readonly #cacheObserved = cacheObservationMetrics(this.registry);

  constructor({ store, processMetrics = true }: MetricsOptions = {}) {
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
    const gauges = store
      ? storeGauges(this.registry, store, () => this.storeError("stats"))
      : undefined;
    this.#storeErrors = new Counter({
      name: "cg_store_errors_total",
      help: "Store operations that failed or timed out.",
      labelNames: ["operation"],
      registers: [this.registry],
      // A size read that fails during a scrape is counted before this counter is rendered.
      collect: async () => {
        await gauges?.refresh();
      },
    });
    this.#zeroKnownSeries();
  }

  /** One answered HTTP request; `route` is the route pattern, never the raw path. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.#requests.add(`${route} ${method} ${status}`, 1, () => ({
      route,
      method,
      status: String(status),
    }));
    this.#latency.observe({ route }, seconds);
  }

  /** A body read into a buffer kept from an earlier one (BodyBuffers). */
  bodyBufferReused(): void {
    this.#bodyBuffersReused.inc();
  }

  /** A `/compact` body given back untouched before the compactor answered (busy, deadline…). */
  observePassthrough(reason: string): void {
    this.#passthrough.inc({ reason });
  }

  /** Token, marker, revert and gate figures of one compaction (the route's or the proxy's). */
  observeCompact(result: CompactResult): void {
    if (result.passthrough !== undefined) {
      this.#passthrough.inc({ reason: result.passthrough });
      return;
    }
    this.#requestTokensBefore.add("", result.tokensBefore, () => ({}));
    this.#requestTokensAfter.add("", result.tokensAfter, () => ({}));
    const { state, reason } = result.cache;
    this.#cacheRequests.add(`${state} ${reason}`, 1, () => ({ state, reason }));
    if (result.replayed > 0) this.#replayed.add("", result.replayed, () => ({}));
    if (result.pricedBreak) {
      const { pricing, netSaving } = result.pricedBreak;
      this.#pricedBreaks.inc({ pricing });
      this.#pricedSaving.inc({ pricing }, Math.max(0, netSaving));
    }
    if (result.markersDegraded) this.#degraded.inc({ reason: result.markersDegraded });
    const stashFailed = result.report?.stashFailure !== undefined;
    if (result.report?.pieced) this.#pieced.inc(result.report.pieced);
    if (result.report?.oneWay) {
      this.#oneWay.inc({ reason: result.report.oneWay.reason }, result.report.oneWay.outputs);
    }
    for (const component of result.report?.components ?? []) {
      const { name } = component;
      const labels = { component: name };
      if (component.gated !== undefined) this.#gated.inc({ ...labels, reason: component.gated });
      const reverted = stashFailed ? "stash_failed" : component.reverted?.reason;
      const after = reverted === undefined ? component.tokensAfter : component.tokensBefore;
      const byName = () => labels;
      this.#tokensBefore.add(name, component.tokensBefore, byName);
      this.#tokensAfter.add(name, after, byName);
      this.#tokensSaved.add(name, Math.max(0, component.tokensBefore - after), byName);
      if (reverted !== undefined) this.#reverts.inc({ ...labels, reason: reverted });
      else if (component.keys.length > 0) {
        this.#markers.add(name, component.keys.length, byName);
      }
      for (const call of component.modelCalls ?? []) {
        this.#modelCalls.inc({ ...labels, outcome: call.outcome });
        if (call.outcome === "skipped") continue;
        this.#modelLatency.observe(labels, call.durationMs / 1000);
        this.#modelTokens.inc({ ...labels, direction: "input" }, call.inputTokens ?? 0);
        this.#modelTokens.inc({ ...labels, direction: "output" }, call.outputTokens ?? 0);
      }
    }
  }

  /** The proxy loop's hooks, counting rounds, resolutions, misses, bails and deliveries. */
  proxyEvents(): ProxyEvents {
    return {
      onRound: () => this.#expandRounds.inc(),
      onResolved: () => this.#expandResolutions.inc(),
      onMiss: () => this.#expandMisses.inc(),
      onBail: (reason) => this.#expandBails.inc({ reason }),
      onResponse: ({ provider, streamed }) =>
        this.#proxyResponses.inc({ provider, delivery: streamed ? "streamed" : "buffered" }),
    };
  }

  /** The observed cache state's hooks: predicted vs served, idle times, the learned lifetime. */
  cacheEvents(): CacheObserverEvents {
    return this.#cacheObserved;
  }

  /** One compaction or rehydration job: on which thread it ran and how it ended. */
  observeJob(job: JobKind, thread: JobThread, end: JobEnd): void {
    this.#jobs.add(`${job} ${thread} ${end}`, 1, () => ({ job, thread, end }));
  }

  /** Reports the bytes of bodies being compacted or rehydrated at each scrape. */
  trackInflight(read: () => number): void {
    this.#inflight = read;
  }

  storeError(operation: StoreOperation): void {
    this.#storeErrors.inc({ operation });
  }

  /** The exposition text for GET /metrics. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Series with a known, bounded label set start at 0, so rates work from the first scrape. */
  #zeroKnownSeries(): void {
    for (const component of componentNames) {
      for (const tally of [this.#tokensBefore, this.#tokensAfter, this.#tokensSaved]) {
        tally.counter.inc({ component }, 0);
      }
      this.#markers.counter.inc({ component }, 0);
    }
    for (const reason of bailReasons) this.#expandBails.inc({ reason }, 0);
    for (const [state, reasons] of [
      ["warm", ["recent", "unknown", "header", "observed"]],
      ["cold", ["header", "ttl", "budget", "policy", "observed", "priced", "first", "diverged"]],
    ] as const) {
      for (const reason of reasons) this.#cacheRequests.counter.inc({ state, reason }, 0);
    }
    this.#replayed.counter.inc(0);
    for (const pricing of PRICING_NAMES) {
      if (pricing === "prefill-only") continue; // never breaks on purpose
      this.#pricedBreaks.inc({ pricing }, 0);
      this.#pricedSaving.inc({ pricing }, 0);
    }
    for (const operation of storeOperations) this.#storeErrors.inc({ operation }, 0);
    for (const { name: provider } of SHAPES) {
      for (const delivery of ["streamed", "buffered"]) {
        this.#proxyResponses.inc({ provider, delivery }, 0);
      }
    }
  }

  #counter(name: string, help: string, labelNames: readonly string[] = []) {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  #tally(name: string, help: string, labelNames: readonly string[] = []): Tally {
    const tally: Tally = new Tally(
      new Counter({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect: () => tally.flush(),
      }),
    );
    return tally;
  }
}

/**
 * A counter fed on every request without prom-client's cost per call (it hashes the label object
 * each time, and a compaction adds to a dozen series): sums are kept per label set and handed to
 * the counter when the registry is read.
 */
class Tally {
  readonly #pending = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(readonly counter: Counter) {}

  /** Adds `value` to the series `key` names; `labels` builds its labels the first time. */
  add(key: string, value: number, labels: () => Record<string, string>): void {
    const pending = this.#pending.get(key);
    if (pending) pending.value += value;
    else this.#pending.set(key, { labels: labels(), value });
  }

  flush(): void {
    for (const { labels, value } of this.#pending.values()) this.counter.inc(labels, value);
    this.#pending.clear();
  }
}
