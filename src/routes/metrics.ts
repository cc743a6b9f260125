import { Hono } from "hono";
import type { Metrics } from "../observability/metrics.js";

/** GET /metrics: Prometheus text exposition of the service's own registry. */
export function metricsRoute(metrics: Metrics): Hono {
  return new Hono().get("/metrics", async (context) => {
    const text = await metrics.render();
    return context.body(text, 200, { "content-type": metrics.contentType });
  });
}
