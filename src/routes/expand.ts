import { Hono } from "hono";
import type { Services } from "../app.js";
import { explicitSessionKey } from "../session/key.js";

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const NOT_FOUND = { error: "expired, unknown, or not owned by this session" };

/** GET /expand?id=HASH[&session=S] (§2): a stashed original, only to the session that stashed it. */
export function expandRoutes({ store }: Services): Hono {
  const app = new Hono();
  app.get("/expand", async (c) => {
    const id = c.req.query("id");
    if (id === undefined || !ID.test(id)) {
      return c.json({ error: "query parameter id must be a marker id ([A-Za-z0-9_-]{1,64})" }, 400);
    }
    // The same key /compact used for this id: an unusable id maps into its own namespace.
    const session = explicitSessionKey(
      c.req.header("x-context-guru-session") ?? c.req.query("session"),
    );
    if (session === undefined) return c.json(NOT_FOUND, 404);
    let original: string | undefined;
    try {
      original = await store.get(session, id);
    } catch {
      return c.json({ error: "store unavailable" }, 503);
    }
    if (original === undefined) return c.json(NOT_FOUND, 404);
    return c.body(original, 200, { "content-type": "text/plain; charset=utf-8" });
  });
  return app;
}
