import type { MiddlewareHandler } from "hono";
import type { Metrics } from "./metrics.js";
import { routeLabel } from "./route-label.js";

/** Counts every request by route and status and observes its latency (to response headers). */
export function httpMetrics(metrics: Metrics): MiddlewareHandler {
  return async (context, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    metrics.observeRequest(routeLabel(context), context.req.method, context.res.status, seconds);
  };
}
