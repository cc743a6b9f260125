import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

declare module "hono" {
  interface ContextVariableMap {
    /**
     * A known route answered without its handler, for its label: asked with a method it does not
     * serve (the 405 answer), or with a WebSocket upgrade (the 426 answer).
     */
    knownRoute: string;
  }
}

/**
 * The route pattern that answered (`/expand`, `/v1/messages`, `/v1/models/:id`), for metric
 * labels and logs: bounded, never the raw path, and a parameter without the constraint its
 * pattern gives it (`/v1/models/:id{.+}` is `/v1/models/:id`). A known route asked with the
 * wrong method (`GET /compact`, 405) or answered before its handler (a WebSocket upgrade on
 * `/v1/responses`, 426) is labelled with that route; requests no route matched are labelled
 * `unmatched`.
 */
export function routeLabel(context: Context): string {
  const handlers = matchedRoutes(context).filter((route) => route.method !== "ALL");
  const pattern = handlers.at(-1)?.path;
  if (pattern !== undefined) return patternLabel(pattern);
  return context.get("knownRoute") ?? "unmatched";
}

/** A parameter's pattern constraint: `:id{.+}` up to the end of its segment. */
const CONSTRAINT = /(:\w+)\{.*?\}(?=\/|$)/g;

/** A route pattern as labelled: `/v1/models/:id{.+}` is `/v1/models/:id`. */
export function patternLabel(pattern: string): string {
  return pattern.replace(CONSTRAINT, "$1");
}
