import { EXCHANGE_HEADER, type RawHeaders } from "../records.js";

/**
 * Client headers reach the upstream unchanged (§10): every header the client sent arrives with
 * its value, save those a proxy must not pass on — hop-by-hop and the ones the `Connection`
 * header lists, `host`, `content-length` (the body may be shorter), `accept-encoding` (the
 * service's fetch negotiates its own), `cookie`, `x-context-guru-*` — and the tap's own tag.
 * Headers the service's HTTP client adds by itself (`accept-language`, `sec-fetch-mode`) are
 * reported, not failed.
 */

const NOT_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "accept-encoding",
  "cookie",
  "expect",
]);

export interface HeaderDifference {
  /** Client headers that did not arrive. */
  readonly missing: readonly string[];
  /** Client headers that arrived with another value: `name: sent → received`. */
  readonly changed: readonly string[];
  /** Headers that arrived without the client sending them. */
  readonly added: readonly string[];
}

function byName(headers: RawHeaders): Map<string, string> {
  const map = new Map<string, string>();
  for (let index = 0; index + 1 < headers.length; index += 2) {
    const name = (headers[index] ?? "").toLowerCase();
    const value = headers[index + 1] ?? "";
    const earlier = map.get(name);
    map.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
  }
  return map;
}

export function headerDifference(sent: RawHeaders, received: RawHeaders): HeaderDifference {
  const client = byName(sent);
  const upstream = byName(received);
  const listed = new Set(
    (client.get("connection") ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
  );
  const dropped = (name: string) =>
    NOT_FORWARDED.has(name) || listed.has(name) || name.startsWith("x-context-guru-");
  const missing: string[] = [];
  const changed: string[] = [];
  for (const [name, value] of client) {
    if (dropped(name)) continue;
    const arrived = upstream.get(name);
    if (arrived === undefined) missing.push(name);
    else if (arrived !== value) changed.push(`${name}: ${value} → ${arrived}`);
  }
  const added = [...upstream.keys()].filter(
    (name) => !client.has(name) && name !== EXCHANGE_HEADER && !NOT_FORWARDED.has(name),
  );
  return { missing, changed, added };
}
