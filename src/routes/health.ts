import { Hono } from "hono";
import type { Services } from "../app.js";
import { storeDescription } from "../store/types.js";

/** Liveness, readiness (false while draining or while a required store is unreachable). */
export function healthRoutes({ lifecycle, store }: Pick<Services, "lifecycle" | "store">): Hono {
  const app = new Hono();
  const live = () =>
    new Response('{"status":"ok"}', { headers: { "content-type": "application/json" } });
  app.get("/livez", live);
  app.get("/healthz", live);
  app.get("/readyz", async (c) => {
    if (lifecycle.draining) return c.json({ status: "draining" }, 503);
    const storeUp = await store.ready().catch(() => false);
    if (!storeUp) return c.json({ status: "store_unavailable", ...storeDescription(store) }, 503);
    return c.json({ status: "ready", ...storeDescription(store) });
  });
  return app;
}
