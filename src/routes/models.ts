import { type Context, Hono } from "hono";
import type { Config } from "../config/schema.js";
import type { ProxyEvents } from "../proxy/events.js";
import { forwardRequest } from "../proxy/forward.js";
import { errorResponse } from "../proxy/upstream-failure.js";
import { UpstreamClient } from "../upstream/client.js";
import type { Upstream } from "../wire/types.js";
import { deliveryOf } from "./delivery.js";

export interface ModelsDeps {
  readonly config: Config;
  /** Upstream fetch; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  readonly proxyEvents?: Pick<ProxyEvents, "onUpstreamFailure"> | undefined;
}

const MODELS = "/v1/models";

/** The models list below each upstream's configured base URL, as the official SDKs lay it out. */
const PATHS: Readonly<Record<Upstream, string>> = { openai: "/models", anthropic: "/v1/models" };

/**
 * The upstream a models request is for. Both providers serve `GET /v1/models`, so the request's
 * own headers decide: Anthropic when it carries what only Anthropic's clients send — an
 * `anthropic-version` header (every Anthropic SDK sends one) or an `x-api-key` (Anthropic's key
 * header) — else OpenAI, whose clients send `authorization: Bearer`.
 */
export function modelsUpstream(headers: Headers): Upstream {
  return headers.has("anthropic-version") || headers.has("x-api-key") ? "anthropic" : "openai";
}

/**
 * `GET /v1/models` and `GET /v1/models/{id}` (§2), which SDKs and CLIs probe: forwarded to the
 * upstream modelsUpstream picks, query and headers as every proxy route forwards them, and the
 * answer relayed unchanged, error statuses included. An id is passed on as the client spelled it
 * (`ft:gpt-4o:org:x`, `meta-llama/Llama-3.1-8B`); one with an empty, `.` or `..` segment once
 * decoded (`a%2F..%2Fb`) is refused with `404` and never sent, so a request cannot reach another
 * path of the upstream than a model's.
 */
export function modelsRoutes(deps: ModelsDeps): Hono {
  const client = new UpstreamClient(deps.config.upstream, deps.fetch);
  const events = deps.proxyEvents ?? {};
  const forward = (c: Context, suffix: string) => {
    const request = c.req.raw;
    const upstream = modelsUpstream(request.headers);
    return forwardRequest(
      client,
      {
        upstream,
        path: `${PATHS[upstream]}${suffix}`,
        // A HEAD is routed as a GET and asked upstream as the HEAD it is.
        method: request.method,
        headers: request.headers,
        search: new URL(request.url).search,
        signal: request.signal,
      },
      { events, delivery: deliveryOf(c) },
    );
  };
  const app = new Hono();
  app.get(MODELS, (c) => forward(c, ""));
  app.get(`${MODELS}/:id{.+}`, (c) => {
    const suffix = new URL(c.req.url).pathname.slice(MODELS.length);
    if (!isModelPath(suffix)) return errorResponse(404, "not a model id");
    return forward(c, suffix);
  });
  return app;
}

/** `/ID` where ID, decoded, is segments (split at slashes and backslashes), none empty, `.` or `..`. */
function isModelPath(suffix: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(suffix.slice(1));
  } catch {
    return false;
  }
  return decoded
    .split(/[/\\]/)
    .every((segment) => segment !== "" && segment !== "." && segment !== "..");
}
