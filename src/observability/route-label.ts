import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

declare module "hono" {
  interface ContextVariableMap {
    /** A known route asked with a method it does not serve (the 405 answer), for its label. */
    knownRoute: string;
  }
}

/**
 * The route pattern that answered (`/expand`, `/v1/messages`), for metric labels and logs:
 * bounded, never the raw path. A known route asked with the wrong method (`GET /compact`, 405)
 * is labelled with that route; requests no route matched are labelled `unmatched`.
 */
export function routeLabel(context: Context): string {
  const handlers = matchedRoutes(context).filter((route) => route.method !== "ALL");
  return handlers.at(-1)?.path ?? context.get("knownRoute") ?? "unmatched";
}
