import { Hono } from "hono";
import type { Services } from "../app.js";
import type { CompactResult } from "../compactor.js";
import { pipelineNames } from "../config/pipeline-header.js";
import { credentialHeaders } from "../model/credential-headers.js";
import { parseProviderChoice } from "../wire/detect.js";
import { limitBody } from "./body-limit.js";

const JSON_TYPE = "application/json";
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Response of a body that went back as it came: the router then uses its original. */
function original(bytes: Uint8Array): Response {
  return new Response(bytes, { status: 200, headers: { "content-type": JSON_TYPE } });
}

/**
 * POST /compact (§2), the llm-d contract: `200` + a JSON body of the same shape for every body
 * that was read — the original bytes whenever anything is wrong — and `413` over the limit.
 */
export function compactRoutes({ config, compactor, metrics }: Services): Hono {
  const app = new Hono();
  app.post("/compact", limitBody(config.limits.body_bytes), async (c) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (c.req.header("x-context-guru-bypass")?.toLowerCase() === "true") return original(bytes);
    const provider = parseProviderChoice(c.req.query("provider"));
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return original(bytes);
    }
    if (provider === undefined) return original(bytes);
    const pipelineHeader = c.req.header("x-context-guru-pipeline");
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve(undefined);
      }, config.limits.compact_timeout_ms);
    });
    let result: CompactResult | undefined;
    try {
      result = await Promise.race([
        compactor.compact(text, {
          provider,
          session: c.req.header("x-context-guru-session"),
          pipeline: pipelineNames(pipelineHeader),
          preset: c.req.query("preset"),
          signal: abort.signal,
          incoming: { headers: credentialHeaders(c.req.raw.headers) },
        }),
        deadline,
      ]);
    } catch {
      result = undefined;
    } finally {
      clearTimeout(timer);
    }
    if (!result) return original(bytes);
    metrics.observeCompact(result);
    const headers: Record<string, string> = {
      "content-type": JSON_TYPE,
      "x-context-guru-tokens-before": String(result.tokensBefore),
      "x-context-guru-tokens-after": String(result.tokensAfter),
      "x-context-guru-markers": String(result.markers),
      "x-context-guru-session": result.session,
    };
    if (result.pipelineFallback) headers["x-context-guru-pipeline-fallback"] = "configured";
    return new Response(result.changed ? result.text : bytes, { status: 200, headers });
  });
  return app;
}
