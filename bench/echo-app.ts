import { Hono } from "hono";

/**
 * The floor the benchmarks measure /compact against: a bare Hono app that parses each body and
 * serialises it again, nothing else.
 */
export function echoApp(): Hono {
  const app = new Hono();
  app.post("/compact", async (c) => {
    const text = await c.req.text();
    return c.body(JSON.stringify(JSON.parse(text)), 200, { "content-type": "application/json" });
  });
  return app;
}
