import { Hono } from "hono";
import { Compactor } from "./compactor.js";
import { components } from "./components/registry.js";
import type { Config } from "./config/schema.js";
import { Lifecycle } from "./lifecycle/lifecycle.js";
import type { Registry } from "./pipeline/run.js";
import type { ProxyEvents } from "./proxy/events.js";
import { compactRoutes } from "./routes/compact.js";
import { expandRoutes } from "./routes/expand.js";
import { healthRoutes } from "./routes/health.js";
import { proxyRoutes } from "./routes/proxy.js";
import { rehydrateRoutes } from "./routes/rehydrate.js";
import type { Store } from "./store/types.js";

export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  /** Defaults to the built-in components. */
  readonly registry?: Registry;
  readonly lifecycle?: Lifecycle;
  /** Upstream fetch for the proxy routes; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** Hooks of the proxy's expand loop (metrics). */
  readonly proxyEvents?: ProxyEvents;
}

/** Everything a route may use; built once per app. */
export interface Services {
  readonly config: Config;
  readonly store: Store;
  readonly compactor: Compactor;
  readonly lifecycle: Lifecycle;
  readonly fetch: typeof fetch;
}

/** Builds the HTTP app (§2). It never listens: src/server.ts does. */
export function createApp(deps: AppDeps): Hono {
  const services: Services = {
    config: deps.config,
    store: deps.store,
    compactor: new Compactor({
      config: deps.config,
      store: deps.store,
      registry: deps.registry ?? components,
    }),
    lifecycle: deps.lifecycle ?? new Lifecycle(),
    fetch: deps.fetch ?? fetch,
  };
  const app = new Hono();
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
  app.route("/", proxyRoutes({ ...services, proxyEvents: deps.proxyEvents }));
  app.notFound((c) => c.json({ error: "not found" }, 404));
  app.onError((_error, c) => c.json({ error: "internal error" }, 500));
  return app;
}
