import { Hono } from "hono";
import { bearerAuth } from "./auth/bearer.js";
import type { Config } from "./config/schema.js";
import type { Lifecycle } from "./lifecycle/lifecycle.js";
import type { Metrics } from "./observability/metrics.js";
import { healthRoutes } from "./routes/health.js";
import { metricsRoute } from "./routes/metrics.js";
import type { Store } from "./store/types.js";

export interface ProbeAppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly lifecycle: Lifecycle;
  readonly metrics: Metrics;
}

/**
 * What `server.probe_port` serves: liveness, readiness and metrics, nothing else. With the main
 * listener on loopback (a sidecar), the kubelet and Prometheus reach the pod's IP here, while
 * `/compact`, `/expand`, `/rehydrate` and the proxies stay reachable from inside the pod only.
 */
export function createProbeApp(deps: ProbeAppDeps): Hono {
  const app = new Hono();
  app.use("/metrics", bearerAuth(deps.config.auth.token));
  app.route("/", healthRoutes(deps));
  app.route("/", metricsRoute(deps.metrics));
  app.notFound((c) =>
    c.json(
      { error: "not found: this port serves only /livez, /healthz, /readyz and /metrics" },
      404,
    ),
  );
  return app;
}
