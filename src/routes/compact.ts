import { type Context, Hono } from "hono";
import type { Services } from "../app.js";
import { parseCacheHeader } from "../cache/policy.js";
import { pipelineNames } from "../config/pipeline-header.js";
import { credentialHeaders } from "../model/credential-headers.js";
import { parseProviderChoice } from "../wire/provider-choice.js";
import { limitBody, requestBytes } from "./body-limit.js";
import { decodeBody } from "./content-encoding.js";

const JSON_TYPE = "application/json";

/**
 * Response of a body that went back as it came, and why (`x-context-guru-passthrough`, and the
 * request's log line): the router then uses its original.
 */
function original(c: Context, bytes: Uint8Array, reason: string): Response {
  c.set("passthrough", reason);
  return new Response(bytes, {
    status: 200,
    headers: { "content-type": JSON_TYPE, "x-context-guru-passthrough": reason },
  });
}

/**
 * POST /compact (§2), the llm-d contract: `200` + a JSON body of the same shape for every body
 * that was read — the original bytes whenever anything is wrong — and `413` over the limit.
 */
export function compactRoutes({ config, compaction, metrics, bodyBuffers }: Services): Hono {
  const app = new Hono();
  const limit = config.limits.body_bytes;
  app.post("/compact", limitBody(limit, bodyBuffers), decodeBody(limit), async (c) => {
    const bytes = await requestBytes(c);
    if (c.req.header("x-context-guru-bypass")?.toLowerCase() === "true")
      return original(c, bytes, "bypass");
    const provider = parseProviderChoice(c.req.query("provider"));
    if (provider === undefined) return original(c, bytes, "unknown_provider");
    // Admitted by bytes in flight, off the event loop when large, original bytes at the deadline.
    const result = await compaction.compact(bytes, {
      provider,
      session: c.req.header("x-context-guru-session"),
      pipeline: pipelineNames(c.req.header("x-context-guru-pipeline")),
      preset: c.req.query("preset"),
      cache: parseCacheHeader(c.req.header("x-context-guru-cache")),
      incoming: { headers: credentialHeaders(c.req.raw.headers) },
    });
    if (typeof result === "string") {
      metrics.observePassthrough(result);
      return original(c, bytes, result);
    }
    metrics.observeCompact(result);
    const headers: Record<string, string> = {
      "content-type": JSON_TYPE,
      "x-context-guru-tokens-before": String(result.tokensBefore),
      "x-context-guru-tokens-after": String(result.tokensAfter),
      "x-context-guru-markers": String(result.markers),
      "x-context-guru-session": result.session,
      "x-context-guru-cache": result.cache.state,
      "x-context-guru-cache-reason": result.cache.reason,
    };
    if (result.pipelineFallback) headers["x-context-guru-pipeline-fallback"] = "configured";
    if (result.markersDegraded) headers["x-context-guru-markers-degraded"] = result.markersDegraded;
    if (result.passthrough) {
      headers["x-context-guru-passthrough"] = result.passthrough;
      c.set("passthrough", result.passthrough);
    }
    return new Response(result.changed ? result.text : bytes, { status: 200, headers });
  });
  return app;
}
