import { causeCode } from "../errors/cause-code.js";
import {
  ClientGoneError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from "../upstream/errors.js";
import type { Provider } from "../wire/types.js";
import type { ProxyEvents } from "./events.js";

/** A JSON error the service answers itself: `{"error": message}`. */
export function errorResponse(status: number, message: string): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The answer when the upstream gave no usable response (§10): no headers within the first-byte
 * timeout is `504`, a client that went away `499`, anything else (unreachable, or a body that
 * broke off after its headers) `502`. The messages never name the upstream's address; `events`
 * hear of each `502` and `504` with the socket's error code.
 */
export function upstreamFailureResponse(
  error: unknown,
  provider: Provider,
  signal: AbortSignal,
  events: Pick<ProxyEvents, "onUpstreamFailure">,
): Response {
  const failed = (status: 502 | 504, cause = causeCode(error)) =>
    events.onUpstreamFailure?.({ provider, status, cause });
  if (error instanceof UpstreamTimeoutError) {
    failed(504, "first_byte_timeout");
    return errorResponse(504, error.message);
  }
  if (error instanceof ClientGoneError || signal.aborted) {
    return errorResponse(499, "client disconnected");
  }
  failed(502);
  if (error instanceof UpstreamUnreachableError) return errorResponse(502, error.message);
  return errorResponse(502, new UpstreamUnreachableError().message);
}
