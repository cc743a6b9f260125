import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/**
 * The route pattern that answered (`/expand`, `/v1/messages`), for metric labels and logs:
 * bounded, never the raw path. Requests no handler matched are labelled `unmatched`.
 */
export function routeLabel(context: Context): string {
  const handlers = matchedRoutes(context).filter((route) => route.method !== "ALL");
  return handlers.at(-1)?.path ?? "unmatched";
}
