import type { MiddlewareHandler } from "hono";

/**
 * `426 Upgrade Required` for a WebSocket upgrade attempt on an HTTP route (§2), whatever its
 * method. Clients of the Responses WebSocket transport (Codex) try it first and fall back to
 * HTTP at once on a `426`, where a `404` or `405` makes them retry for seconds. The JSON error
 * names the HTTP route; `upgrade: HTTP/1.1` says which protocol the route is served over (RFC
 * 9110 §15.5.22), and the connection is closed after the answer: its client expected to switch
 * protocols on it, not to send another request. Nothing is sent upstream and no credential is
 * asked for: the answer tells nothing but the route's protocol.
 */
export function upgradeRequired(route: string): MiddlewareHandler {
  return async (c, next) => {
    if (!asksForWebSocket(c.req.header("upgrade"))) return next();
    c.set("knownRoute", route);
    return c.json(
      { error: `${route} is not served over WebSocket; send the request over HTTP: POST ${route}` },
      426,
      { upgrade: "HTTP/1.1", connection: "upgrade, close" },
    );
  };
}

/** Whether an `upgrade` header names the WebSocket protocol (`websocket`, any version) among its protocols. */
function asksForWebSocket(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header
    .split(",")
    .some((protocol) => protocol.split("/")[0]?.trim().toLowerCase() === "websocket");
}
