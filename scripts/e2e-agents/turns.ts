import { type RequestView, readRequest, type Shape } from "./conversation.js";
import { type Exchange, headerValue, type UpstreamRequest } from "./records.js";

/**
 * A run's exchanges joined with what the scripted model received for each: the client's body as
 * the tap saw it, the service's forward and its expand-loop continuations, and what the
 * response said of the cache. The checks read runs through these.
 */

export type Route = "messages" | "responses" | "count_tokens" | "models" | "other";

export interface Turn {
  /** Position among the run's requests to a model route (1-based), for tables. */
  readonly index: number;
  readonly exchange: Exchange;
  readonly route: Route;
  readonly shape: Shape | undefined;
  readonly client: RequestView | undefined;
  /** What the service sent upstream for this exchange: its forward, then each continuation. */
  readonly rounds: readonly UpstreamRequest[];
  /** The forward (first round) as a request view. */
  readonly forwarded: RequestView | undefined;
  readonly kind: UpstreamRequest["kind"] | "none";
  readonly cache: string | undefined;
  readonly reason: string | undefined;
}

export function routeOf(method: string, url: string): Route {
  const path = new URL(url, "http://tap").pathname;
  if (method === "GET" && path.startsWith("/v1/models")) return "models";
  if (method !== "POST") return "other";
  if (path === "/v1/messages") return "messages";
  if (path === "/v1/messages/count_tokens") return "count_tokens";
  if (path === "/v1/responses") return "responses";
  return "other";
}

const SHAPES: Partial<Record<Route, Shape>> = {
  messages: "anthropic",
  count_tokens: "anthropic",
  responses: "responses",
};

export function buildTurns(
  exchanges: readonly Exchange[],
  upstream: readonly UpstreamRequest[],
): Turn[] {
  const byExchange = new Map<string, UpstreamRequest[]>();
  for (const request of upstream) {
    if (request.exchange === undefined) continue;
    const list = byExchange.get(request.exchange) ?? [];
    list.push(request);
    byExchange.set(request.exchange, list);
  }
  let index = 0;
  return exchanges.map((exchange) => {
    const route = routeOf(exchange.method, exchange.url);
    const shape = SHAPES[route];
    const rounds = byExchange.get(exchange.id) ?? [];
    const first = rounds[0];
    const modelRoute = route === "messages" || route === "responses";
    return {
      index: modelRoute ? ++index : 0,
      exchange,
      route,
      shape,
      client: shape && readRequest(shape, exchange.requestBody),
      rounds,
      forwarded: shape && first ? readRequest(shape, first.body) : undefined,
      kind: first?.kind ?? "none",
      cache: headerValue(exchange.responseHeaders, "x-context-guru-cache"),
      reason: headerValue(exchange.responseHeaders, "x-context-guru-cache-reason"),
    };
  });
}

/**
 * What the service said it treated a request as (`warm/recent`), or `uncompacted` when its
 * response carries no `x-context-guru-cache`: the service forwarded the body as it came (a
 * summary request it recognises, or a compaction past `limits.compact_timeout_ms`).
 */
export function cacheTreatment(turn: Turn): string {
  return turn.cache === undefined ? "uncompacted" : `${turn.cache}/${turn.reason ?? "—"}`;
}

/** The turns of the agent's own conversation: model-route requests the model took as turns. */
export function sessionTurns(turns: readonly Turn[]): Turn[] {
  return turns.filter((turn) => turn.index > 0 && turn.kind === "turn");
}
