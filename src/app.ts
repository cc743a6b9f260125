import { Hono } from "hono";
import { bearerAuth } from "./auth/bearer.js";
import { proxyAuth } from "./auth/proxy-auth.js";
import { type CompactOptions, Compactor } from "./compact/compactor.js";
import { Compaction } from "./compaction/compaction.js";
import { cpuBudget, workerCount } from "./compaction/cpu-budget.js";
import { InflightBytes } from "./compaction/inflight.js";
import { WorkerPool } from "./compaction/worker-pool.js";
import { components } from "./components/registry.js";
import { pipelineNames } from "./config/pipeline-header.js";
import type { Config } from "./config/schema.js";
import { Lifecycle } from "./lifecycle/lifecycle.js";
import { httpMetrics } from "./observability/http-metrics.js";
import type { Logger } from "./observability/logger.js";
import { Metrics } from "./observability/metrics.js";
import { logModelFailures } from "./observability/model-call-log.js";
import { observedStore } from "./observability/observed-store.js";
import { requestLog } from "./observability/request-log.js";
import { withUpstreamFailureLog } from "./observability/upstream-failure-log.js";
import type { Registry } from "./pipeline/run.js";
import type { ProxyEvents } from "./proxy/events.js";
import { BodyBuffers, MAX_IDLE_BYTES } from "./routes/body-buffers.js";
import { compactRoutes } from "./routes/compact.js";
import { expandRoutes } from "./routes/expand.js";
import { healthRoutes } from "./routes/health.js";
import { metricsRoute } from "./routes/metrics.js";
import { modelsRoutes, modelsUpstream } from "./routes/models.js";
import { openapiRoute } from "./routes/openapi.js";
import { proxyRoutes } from "./routes/proxy.js";
import { rehydrateRoutes } from "./routes/rehydrate.js";
import { unmatchedHandler } from "./routes/unmatched.js";
import { upgradeRequired } from "./routes/upgrade.js";
import type { Store } from "./store/types.js";

export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  /** Defaults to the built-in components. */
  readonly registry?: Registry;
  readonly lifecycle?: Lifecycle;
  /** Upstream fetch for the proxy routes; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** Hooks of the proxy's expand loop; defaults to the metrics' counters. */
  readonly proxyEvents?: ProxyEvents;
  /** Defaults to a fresh registry without process metrics (the server passes one with them). */
  readonly metrics?: Metrics;
  /** One JSON line per request when given. */
  readonly logger?: Logger;
  /** Milliseconds clock of the session ledger's request times; tests move time by hand. */
  readonly clock?: () => number;
  /**
   * The marker key (§6), as resolved at start (src/hash-key/resolve.ts); defaults to
   * `store.hash_key`, else a random key of this app.
   */
  readonly hashKey?: string;
  /**
   * Worker threads for large bodies; by default a pool that starts its workers as bodies need
   * them. None with a custom `registry`: its components cannot cross into a worker thread.
   */
  readonly pool?: WorkerPool;
}

/** Everything a route may use; built once per app. */
export interface Services {
  readonly config: Config;
  readonly store: Store;
  readonly compactor: Pick<Compactor, "compact" | "hash">;
  /** Compaction and rehydration as routes run them: admitted, off the event loop, on time. */
  readonly compaction: Compaction;
  readonly lifecycle: Lifecycle;
  readonly fetch: typeof fetch;
  readonly metrics: Metrics;
  /** What `/compact` bodies are read into, kept from one body to the next. */
  readonly bodyBuffers: BodyBuffers;
}

/** Builds the HTTP app (§2). It never listens: src/server.ts does. */
export function createApp(deps: AppDeps): Hono {
  const metrics = deps.metrics ?? new Metrics({ store: deps.store, processMetrics: false });
  const store = observedStore(deps.store, metrics);
  const compactor = new Compactor({
    config: deps.config,
    store,
    registry: deps.registry ?? components,
    hashKey: deps.hashKey,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  const { logger } = deps;
  const inflight = new InflightBytes(deps.config.limits.inflight_bytes);
  metrics.trackInflight(() => inflight.bytes);
  const services: Services = {
    config: deps.config,
    store,
    compactor,
    compaction: new Compaction({
      config: deps.config,
      compactor,
      store,
      pool:
        deps.pool ??
        (deps.registry ? undefined : defaultPool(deps.config, store, compactor.hashKey)),
      inflight,
      onJob: (kind, thread, end) => metrics.observeJob(kind, thread, end),
      ...(logger ? { onCompacted: (result) => logModelFailures(logger, result) } : {}),
    }),
    lifecycle: deps.lifecycle ?? new Lifecycle(),
    fetch: deps.fetch ?? fetch,
    metrics,
    bodyBuffers: new BodyBuffers(MAX_IDLE_BYTES, () => metrics.bodyBufferReused()),
  };
  const app = new Hono();
  if (deps.logger) app.use(requestLog(deps.logger));
  app.use(httpMetrics(metrics));
  const auth = bearerAuth(deps.config.auth.token);
  for (const path of ["/expand", "/rehydrate", "/metrics"]) app.use(path, auth);
  // Before any credential is asked for: the answer tells nothing but the route's protocol.
  app.use("/v1/responses", upgradeRequired("/v1/responses"));
  const { token } = deps.config.auth;
  const { openai, anthropic } = deps.config.upstream;
  const gateway = {
    openai: proxyAuth(token, openai.api_key),
    anthropic: proxyAuth(token, anthropic.api_key),
  };
  app.use("/v1/chat/completions", gateway.openai);
  app.use("/v1/responses", gateway.openai);
  app.use("/v1/messages", gateway.anthropic);
  app.use("/v1/messages/count_tokens", gateway.anthropic);
  app.use("/v1/models/*", (c, next) => gateway[modelsUpstream(c.req.raw.headers)](c, next));
  app.use(async (c, next) => {
    if (services.lifecycle.draining && !c.req.path.endsWith("z")) {
      c.header("connection", "close");
      return c.json({ error: "shutting down" }, 503);
    }
    return next();
  });
  app.route("/", healthRoutes(services));
  app.route("/", compactRoutes(services));
  app.route("/", expandRoutes(services));
  app.route("/", rehydrateRoutes(services));
  // The proxy's compaction step: the same admission, threads and deadline as /compact.
  const observed = {
    compact: (text: string, options: CompactOptions = {}) =>
      services.compaction
        .compact(text, { ...options, pipeline: pipelineNames(options.pipeline) })
        .then((result) => {
          if (typeof result === "string") throw new CompactionSkippedError(result);
          // A dry run (a token count) is never sent to the model: it saved nothing.
          if (!options.dryRun) metrics.observeCompact(result);
          return result;
        }),
  };
  const proxyEvents = withUpstreamFailureLog(deps.proxyEvents ?? metrics.proxyEvents(), logger);
  app.route(
    "/",
    proxyRoutes({
      ...services,
      compactor: observed,
      proxyEvents,
      cacheEvents: metrics.cacheEvents(),
    }),
  );
  app.route("/", modelsRoutes({ config: deps.config, fetch: services.fetch, proxyEvents }));
  app.route("/", metricsRoute(metrics));
  app.route("/", openapiRoute());
  app.notFound(unmatchedHandler(app));
  app.onError((_error, c) => c.json({ error: "internal error" }, 500));
  return app;
}

/** The proxy's compaction gave no result (not admitted, past its deadline, or failed). */
class CompactionSkippedError extends Error {
  override readonly name = "CompactionSkippedError";
  constructor(readonly reason: string) {
    super(`compaction skipped: ${reason}`);
  }
}

/**
 * The process's compaction threads: `limits.compact_workers`, else from the CPU budget; they
 * write their marker ids under `hashKey` (one deployment key for every thread).
 */
export function defaultPool(config: Config, store: Store, hashKey: string): WorkerPool {
  const size = config.limits.compact_workers || workerCount(cpuBudget());
  return new WorkerPool({ size, setup: { config, hashKey }, store });
}
