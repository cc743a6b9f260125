import type { UpstreamRoute } from "../wire/shape.js";

/** Hop-by-hop headers (RFC 9110 §7.6.1) and others a proxy must not pass on. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** Never sent upstream: transport framing, the client's host, cookies, our own control headers. */
const REQUEST_DROPPED = new Set([
  ...HOP_BY_HOP,
  "host",
  "content-length",
  "cookie",
  "expect",
  // fetch negotiates and decodes compression itself; the body relayed is always decoded.
  "accept-encoding",
]);

/** Never relayed to the client: the body was decoded and may be re-framed. */
const RESPONSE_DROPPED = new Set([
  ...HOP_BY_HOP,
  "content-encoding",
  "content-length",
  "set-cookie",
]);

/** Credentials each provider's clients send; a configured gateway key replaces all of them. */
const CREDENTIALS = ["authorization", "x-api-key", "api-key"];

/**
 * The headers to send upstream for a client request (§10 hygiene); a configured gateway key goes
 * in the header the route's upstream takes (`upstream`, the wire shape's). A request that carries
 * a body sends it as JSON; one without (`GET /v1/models`) keeps the client's own headers only.
 */
export function upstreamRequestHeaders(
  incoming: Headers,
  upstream: Pick<UpstreamRoute, "gatewayCredential">,
  gatewayKey: string | undefined,
  body = true,
): Headers {
  const headers = new Headers();
  const listed = connectionListed(incoming);
  incoming.forEach((value, name) => {
    if (REQUEST_DROPPED.has(name) || listed.has(name) || name.startsWith("x-context-guru-")) return;
    headers.set(name, value);
  });
  if (gatewayKey !== undefined) {
    for (const name of CREDENTIALS) headers.delete(name);
    headers.set(...upstream.gatewayCredential(gatewayKey));
  }
  if (body) headers.set("content-type", "application/json");
  return headers;
}

/**
 * The upstream response headers to relay to the client. The `x-context-guru-*` names are this
 * service's own: an upstream (another compactor, or one that wants to pass for it) never sets
 * them for the client.
 */
export function relayedResponseHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  const listed = connectionListed(upstream);
  upstream.forEach((value, name) => {
    if (RESPONSE_DROPPED.has(name) || listed.has(name) || name.startsWith("x-context-guru-")) {
      return;
    }
    headers.append(name, value);
  });
  return headers;
}

function connectionListed(headers: Headers): Set<string> {
  const value = headers.get("connection");
  if (value === null) return new Set();
  return new Set(
    value
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
  );
}
