import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "./logger.js";
import { routeLabel } from "./route-label.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The request id echoed in `x-request-id` and written to the request's log line. */
    requestId: string;
    /** Message tokens before and after compaction, for the request's log line. */
    tokens: { readonly before: number; readonly after: number };
  }
}

const usableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One JSON line per request: id, method, route pattern, status, duration, tokens before/after.
 * Never the path's query, headers or bodies (message content and credentials stay out).
 * A usable incoming `x-request-id` is kept, else a new one is made; both are echoed back.
 */
export function requestLog(logger: Logger): MiddlewareHandler {
  return async (context, next) => {
    const started = performance.now();
    const incoming = context.req.header("x-request-id");
    const requestId =
      incoming !== undefined && usableRequestId.test(incoming) ? incoming : randomUUID();
    context.set("requestId", requestId);
    await next();
    context.header("x-request-id", requestId);
    const { status } = context.res;
    const tokens = context.get("tokens") ?? tokensFromHeaders(context.res.headers);
    const line = {
      request_id: requestId,
      method: context.req.method,
      route: routeLabel(context),
      status,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      ...(tokens && { tokens_before: tokens.before, tokens_after: tokens.after }),
    };
    if (status >= 500) logger.error(line, "request");
    else logger.info(line, "request");
  };
}

function tokensFromHeaders(headers: Headers): { before: number; after: number } | undefined {
  const before = headers.get("x-context-guru-tokens-before");
  const after = headers.get("x-context-guru-tokens-after");
  if (before === null || after === null) return undefined;
  const figures = { before: Number(before), after: Number(after) };
  return Number.isFinite(figures.before) && Number.isFinite(figures.after) ? figures : undefined;
}
