import type { ProxyEvents } from "../proxy/events.js";
import type { Logger } from "./logger.js";

/**
 * `events` plus one warning line per proxied request whose upstream failed (the client got
 * `502` or `504`): provider, status and the socket's error code (`ECONNREFUSED`, `ENOTFOUND`,
 * `UND_ERR_SOCKET`), so an operator can tell a wrong address from a dropped connection. Never
 * the upstream URL, a header or a body.
 */
export function withUpstreamFailureLog(
  events: ProxyEvents,
  logger: Logger | undefined,
): ProxyEvents {
  if (!logger) return events;
  return {
    ...events,
    onUpstreamFailure: (info) => {
      events.onUpstreamFailure?.(info);
      logger.warn(
        { provider: info.provider, status: info.status, cause: info.cause ?? "unknown" },
        "upstream failed",
      );
    },
  };
}
