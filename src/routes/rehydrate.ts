import { Hono } from "hono";
import type { Services } from "../app.js";
import { parseProviderChoice } from "../wire/provider-choice.js";
import { limitBody } from "./body-limit.js";

/** Seconds a client is asked to wait before it sends a declined body again. */
const RETRY_AFTER = "1";

/** POST /rehydrate (§2): the body with every resolvable marker and reformat restored. */
export function rehydrateRoutes({ config, compaction }: Services): Hono {
  const app = new Hono();
  app.post("/rehydrate", limitBody(config.limits.body_bytes), async (c) => {
    const provider = parseProviderChoice(c.req.query("provider"));
    if (provider === undefined) {
      return c.json(
        { error: "query parameter provider must be openai, anthropic, responses or auto" },
        400,
      );
    }
    const answer = await compaction.rehydrate(new Uint8Array(await c.req.arrayBuffer()), {
      provider,
      session: c.req.header("x-context-guru-session"),
    });
    switch (answer.kind) {
      case "rehydrated":
        return c.body(answer.result.text, 200, {
          "content-type": "application/json",
          "x-context-guru-session": answer.result.session,
          "x-context-guru-restored": String(answer.result.restored),
          "x-context-guru-unresolved": String(answer.result.unresolved),
        });
      case "not_utf8":
        return c.json({ error: "request body is not valid UTF-8" }, 400);
      case "invalid_body":
        return c.json({ error: answer.message }, 400);
      case "too_costly":
        return c.json(
          {
            error: `request body needs about ${mib(answer.estimate)} MiB to rehydrate, more than the ${mib(answer.budget)} MiB a worker thread has`,
          },
          413,
        );
      case "busy":
        c.header("retry-after", RETRY_AFTER);
        return c.json({ error: "too many bodies in flight, retry later" }, 503);
      case "deadline":
        c.header("retry-after", RETRY_AFTER);
        return c.json(
          { error: `rehydration did not finish within ${config.limits.rehydrate_timeout_ms} ms` },
          503,
        );
      case "store_failed":
      case "failed":
        return c.json({ error: "store unavailable" }, 503);
    }
  });
  return app;
}

function mib(bytes: number): number {
  return Math.ceil(bytes / 1024 / 1024);
}
