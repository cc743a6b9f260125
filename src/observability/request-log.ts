import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { BodyEnd } from "../proxy/relay-body.js";
import type { Logger } from "./logger.js";
import { routeLabel } from "./route-label.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The request id echoed in `x-request-id` and written to the request's log line. */
    requestId: string;
    /** Message tokens before and after compaction, for the request's log line. */
    tokens: { readonly before: number; readonly after: number };
    /** Why `/compact` gave a body back untouched, for the request's log line. */
    passthrough: string;
    /** Set by a route whose body streams: the line is written once the body has ended. */
    bodyEnd: Promise<BodyEnd>;
  }
}

/** The status a request is logged with when its streamed body did not end as sent. */
const BROKEN_STATUS: Readonly<Record<Exclude<BodyEnd, "completed">, number>> = {
  failed: 502,
  cancelled: 499,
};

const usableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One JSON line per request: id, method, route pattern, status, duration, tokens before/after,
 * or why a `/compact` body went back untouched (`passthrough`).
 * A streamed proxy body is logged once it has ended: `status` 502 when the upstream broke it
 * off, 499 when the client left, with `sent_status` the status the client was shown.
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
    echoRequestId(context, requestId);
    const sent = context.res.status;
    const passthrough = context.get("passthrough");
    const tokens =
      passthrough === undefined
        ? (context.get("tokens") ?? tokensFromHeaders(context.res.headers))
        : undefined;
    const write = (end: BodyEnd) => {
      // A body that broke off after a 200 is logged as what it was, with the status it showed.
      const status = end === "completed" ? sent : BROKEN_STATUS[end];
      const line = {
        request_id: requestId,
        method: context.req.method,
        route: routeLabel(context),
        status,
        ...(status !== sent && { sent_status: sent }),
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        ...(tokens && { tokens_before: tokens.before, tokens_after: tokens.after }),
        ...(passthrough !== undefined && { passthrough }),
      };
      if (status >= 500) logger.error(line, "request");
      else logger.info(line, "request");
    };
    const bodyEnd = context.get("bodyEnd");
    if (bodyEnd) void bodyEnd.then(write);
    else write("completed");
  };
}

function tokensFromHeaders(headers: Headers): { before: number; after: number } | undefined {
  const before = headers.get("x-context-guru-tokens-before");
  const after = headers.get("x-context-guru-tokens-after");
  if (before === null || after === null) return undefined;
  const figures = { before: Number(before), after: Number(after) };
  return Number.isFinite(figures.before) && Number.isFinite(figures.after) ? figures : undefined;
}

/**
 * Sets `x-request-id` on the response as it is. `context.header` after the handler would rebuild
 * the response from its body, and a rebuilt response copies a byte body and streams it: a
 * 32 MiB /compact answer would be held twice.
 */
function echoRequestId(context: Context, requestId: string): void {
  try {
    context.res.headers.set("x-request-id", requestId);
  } catch {
    // Immutable headers (a response passed on from fetch): rebuild it after all.
    context.header("x-request-id", requestId);
  }
}
