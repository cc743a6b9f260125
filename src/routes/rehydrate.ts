import { Hono } from "hono";
import type { Services } from "../app.js";
import { InvalidBodyError, rehydrate } from "../rehydrate.js";
import { parseProviderChoice } from "../wire/detect.js";
import { limitBody } from "./body-limit.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** POST /rehydrate (§2): the body with every resolvable marker and reformat restored. */
export function rehydrateRoutes({ config, store, compactor }: Services): Hono {
  const app = new Hono();
  app.post("/rehydrate", limitBody(config.limits.body_bytes), async (c) => {
    const provider = parseProviderChoice(c.req.query("provider"));
    if (provider === undefined) {
      return c.json({ error: "query parameter provider must be openai, anthropic or auto" }, 400);
    }
    let text: string;
    try {
      text = utf8.decode(await c.req.arrayBuffer());
    } catch {
      return c.json({ error: "request body is not valid UTF-8" }, 400);
    }
    try {
      const result = await rehydrate(text, store, compactor.hash, {
        provider,
        session: c.req.header("x-context-guru-session"),
      });
      return c.body(result.text, 200, {
        "content-type": "application/json",
        "x-context-guru-session": result.session,
        "x-context-guru-restored": String(result.restored),
        "x-context-guru-unresolved": String(result.unresolved),
      });
    } catch (error) {
      if (error instanceof InvalidBodyError) return c.json({ error: error.message }, 400);
      return c.json({ error: "store unavailable" }, 503);
    }
  });
  return app;
}
