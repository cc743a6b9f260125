import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { componentNames } from "../config/schema.js";
import type { Store, StoreStats } from "../store/types.js";

/** What one component did in one run, as the pipeline reports it (§4). */
export interface ComponentFigures {
  readonly name: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Markers this component wrote (full or summary mode). */
  readonly markers: number;
  /** Why the pipeline reverted the component; absent when its changes were kept. */
  readonly reverted?: string | undefined;
}

/** The parts of a pipeline run report that metrics count. */
export interface RunFigures {
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly components: readonly ComponentFigures[];
}

/** Why the expand loop handed the upstream response back without continuing (§8). */
const expandBails = ["other_tool", "nothing_resolved", "max_rounds", "upstream_error"] as const;
export type ExpandBail = (typeof expandBails)[number];
const storeOperations = ["put", "get", "sticky", "add_sticky", "ready", "stats"] as const;
export type StoreOperation = (typeof storeOperations)[number];
export type Delivery = "streamed" | "buffered";

export interface MetricsOptions {
  /** The store whose size is reported at each scrape. */
  store?: Store | undefined;
  /** Also export Node.js process metrics (CPU, memory, event loop). Default true. */
  processMetrics?: boolean;
}

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Every Prometheus series the service exports, on a registry of its own (never prom-client's
 * global one, so several apps in one process do not collide). Routes and the pipeline call the
 * methods; the store's size is read at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;

  readonly #requests = this.#counter("cg_http_requests_total", "HTTP requests answered.", [
    "route",
    "method",
    "status",
  ]);
  readonly #latency = new Histogram({
    name: "cg_http_request_duration_seconds",
    help: "Time from request to response headers, by route.",
    labelNames: ["route"],
    buckets: latencyBuckets,
    registers: [this.registry],
  });
  readonly #requestTokensBefore = this.#counter(
    "cg_request_tokens_before_total",
    "Message tokens of request bodies before compaction.",
  );
  readonly #requestTokensAfter = this.#counter(
    "cg_request_tokens_after_total",
    "Message tokens of request bodies after compaction.",
  );
  readonly #tokensBefore = this.#counter(
    "cg_component_tokens_before_total",
    "Message tokens a component received.",
    ["component"],
  );
  readonly #tokensAfter = this.#counter(
    "cg_component_tokens_after_total",
    "Message tokens a component left (its input when it was reverted).",
    ["component"],
  );
  readonly #tokensSaved = this.#counter(
    "cg_component_tokens_saved_total",
    "Message tokens a component removed and kept removed.",
    ["component"],
  );
  readonly #reverts = this.#counter(
    "cg_component_reverts_total",
    "Component runs the pipeline reverted, by reason.",
    ["component", "reason"],
  );
  readonly #markers = this.#counter("cg_markers_written_total", "Markers written.", ["component"]);
  readonly #expandResolutions = this.#counter(
    "cg_expand_resolutions_total",
    "Expand ids resolved to their original.",
    ["via"],
  );
  readonly #expandMisses = this.#counter(
    "cg_expand_misses_total",
    "Expand ids that were unknown, expired or not owned by the session.",
    ["via"],
  );
  readonly #expandBails = this.#counter(
    "cg_expand_bails_total",
    "Upstream responses the expand loop returned as they were, by reason.",
    ["reason"],
  );
  readonly #expandRounds = this.#counter(
    "cg_expand_rounds_total",
    "Upstream re-invocations made by the expand loop.",
  );
  /** Reads the store's size once per scrape; set when a store is watched. */
  #storeStats: (() => Promise<StoreStats | undefined>) | undefined;
  readonly #storeErrors = new Counter({
    name: "cg_store_errors_total",
    help: "Store operations that failed or timed out.",
    labelNames: ["operation"],
    registers: [this.registry],
    // A failed size read during this scrape is counted before this counter is rendered.
    collect: async () => {
      await this.#storeStats?.();
    },
  });
  readonly #proxyResponses = this.#counter(
    "cg_proxy_responses_total",
    "Proxy responses, streamed through or buffered (expand loop, or a non-streaming request).",
    ["provider", "delivery"],
  );

  constructor({ store, processMetrics = true }: MetricsOptions = {}) {
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
    if (store) this.#watchStore(store);
    this.#zeroKnownSeries();
  }

  /** One answered HTTP request; `route` is the route pattern, never the raw path. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.#requests.inc({ route, method, status: String(status) });
    this.#latency.observe({ route }, seconds);
  }

  /** Token and marker figures of one pipeline run. */
  observeRun(run: RunFigures): void {
    this.#requestTokensBefore.inc(run.tokensBefore);
    this.#requestTokensAfter.inc(run.tokensAfter);
    for (const component of run.components) {
      const labels = { component: component.name };
      const { reverted } = component;
      const after = reverted === undefined ? component.tokensAfter : component.tokensBefore;
      this.#tokensBefore.inc(labels, component.tokensBefore);
      this.#tokensAfter.inc(labels, after);
      this.#tokensSaved.inc(labels, Math.max(0, component.tokensBefore - after));
      if (reverted !== undefined) this.#reverts.inc({ ...labels, reason: reverted });
      else if (component.markers > 0) this.#markers.inc(labels, component.markers);
    }
  }

  /** Ids resolved by the proxy loop (`loop`) or by GET /expand (`route`). */
  expandResolved(via: "loop" | "route", count = 1): void {
    if (count > 0) this.#expandResolutions.inc({ via }, count);
  }

  expandMissed(via: "loop" | "route", count = 1): void {
    if (count > 0) this.#expandMisses.inc({ via }, count);
  }

  expandBailed(reason: ExpandBail): void {
    this.#expandBails.inc({ reason });
  }

  expandRound(): void {
    this.#expandRounds.inc();
  }

  storeError(operation: StoreOperation): void {
    this.#storeErrors.inc({ operation });
  }

  proxyResponse(provider: "openai" | "anthropic", delivery: Delivery): void {
    this.#proxyResponses.inc({ provider, delivery });
  }

  /** The exposition text for GET /metrics. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Series with a known, bounded label set start at 0, so rates work from the first scrape. */
  #zeroKnownSeries(): void {
    for (const component of componentNames) {
      for (const counter of [this.#tokensBefore, this.#tokensAfter, this.#tokensSaved]) {
        counter.inc({ component }, 0);
      }
      this.#markers.inc({ component }, 0);
    }
    for (const via of ["loop", "route"] as const) {
      this.#expandResolutions.inc({ via }, 0);
      this.#expandMisses.inc({ via }, 0);
    }
    for (const reason of expandBails) this.#expandBails.inc({ reason }, 0);
    for (const operation of storeOperations) this.#storeErrors.inc({ operation }, 0);
    for (const provider of ["openai", "anthropic"] as const) {
      for (const delivery of ["streamed", "buffered"] as const) {
        this.#proxyResponses.inc({ provider, delivery }, 0);
      }
    }
  }

  #counter(name: string, help: string, labelNames: readonly string[] = []) {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** Store size gauges, read once per scrape; a failing read counts a store error. */
  #watchStore(store: Store): void {
    let pending: Promise<StoreStats | undefined> | undefined;
    const stats = (): Promise<StoreStats | undefined> => {
      pending ??= store
        .stats()
        .catch(() => {
          this.storeError("stats");
          return undefined;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    };
    this.#storeStats = stats;
    const labels = { backend: store.backend };
    const gauge = (name: string, help: string, pick: (value: StoreStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["backend"],
        registers: [this.registry],
        async collect() {
          const value = await stats();
          if (value) this.set(labels, pick(value));
          else this.reset();
        },
      });
    gauge("cg_store_entries", "Originals held by the store.", (value) => value.entries);
    gauge("cg_store_bytes", "Bytes of originals held by the store.", (value) => value.bytes);
  }
}
