import type { Context, Hono } from "hono";

const COMPACT = "/compact";

/**
 * The answer for a request no route matched. A known path asked with the wrong method gets
 * `405` with an `allow` header listing the methods it serves (GET routes also answer HEAD). A
 * path that ends in `/compact` but is not exactly `/compact` (`/compact/compact`, `/v1/compact`,
 * `/compact/`) is what a caller builds when it appends the route to an address that already has
 * it: the `404` says which URL to give it, since such a caller otherwise just keeps its original
 * body and compaction silently never happens. Everything else is a plain `404`.
 */
export function unmatchedHandler(app: Hono): (c: Context) => Response {
  let methods: Map<string, string[]> | undefined;
  return (c) => {
    methods ??= methodsByPath(app);
    const { path } = c.req;
    const allowed = methods.get(path);
    if (allowed !== undefined) {
      c.set("knownRoute", path);
      return c.json(
        { error: `${c.req.method} is not allowed on ${path}; use ${allowed.join(" or ")}` },
        405,
        { allow: allowed.join(", ") },
      );
    }
    if (path.replace(/\/+$/, "").endsWith(COMPACT)) {
      return c.json(
        {
          error: `no route ${path}: the compaction route is POST ${COMPACT} exactly; give the caller the full URL ending in ${COMPACT} (http://HOST:PORT${COMPACT}) and nothing after it`,
        },
        404,
      );
    }
    return c.json({ error: "not found" }, 404);
  };
}

/** The methods each registered path answers, read from the app's own route table. */
function methodsByPath(app: Hono): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const list = methods.get(route.path) ?? [];
    const added = route.method === "GET" ? ["GET", "HEAD"] : [route.method];
    for (const method of added) if (!list.includes(method)) list.push(method);
    methods.set(route.path, list);
  }
  return methods;
}
