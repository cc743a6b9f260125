import { Hono } from "hono";
import { CacheObserver, type CacheObserverEvents } from "../cache/observed.js";
import type { Compactor } from "../compact/compactor.js";
import type { Config } from "../config/schema.js";
import { handleCountTokens } from "../proxy/count-tokens.js";
import type { ProxyEvents } from "../proxy/events.js";
import { handleProxy, type ProxyContext } from "../proxy/handle.js";
import type { Store } from "../store/types.js";
import { UpstreamClient } from "../upstream/client.js";
import { SHAPES } from "../wire/registry.js";
import { limitBody } from "./body-limit.js";
import { deliveryOf } from "./delivery.js";

export interface ProxyDeps {
  readonly config: Config;
  readonly store: Store;
  readonly compactor: Pick<Compactor, "compact">;
  /** Upstream fetch; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  readonly proxyEvents?: ProxyEvents | undefined;
  /** Hooks of the observed cache state; metrics subscribe. */
  readonly cacheEvents?: CacheObserverEvents | undefined;
}

/**
 * The OpenAI- and Anthropic-compatible proxy routes (§2), one per wire shape (its `proxyRoute`):
 * `POST /v1/chat/completions` goes to `upstream.openai.base_url` + `/chat/completions`,
 * `POST /v1/responses` to `upstream.openai.base_url` + `/responses`, `POST /v1/messages` to
 * `upstream.anthropic.base_url` + `/v1/messages`, as the official SDKs lay out their base URLs.
 * `POST /v1/messages/count_tokens` is prepared as `/v1/messages` would be, recording nothing, and
 * goes to `upstream.anthropic.base_url` + `/v1/messages/count_tokens`.
 */
export function proxyRoutes(deps: ProxyDeps): Hono {
  const { config } = deps;
  const context: ProxyContext = {
    config,
    store: deps.store,
    compactor: deps.compactor,
    client: new UpstreamClient(config.upstream, deps.fetch),
    events: deps.proxyEvents ?? {},
    observer: new CacheObserver({
      config: config.cache,
      store: deps.store,
      events: deps.cacheEvents,
    }),
  };
  const limit = limitBody(config.limits.body_bytes);
  const app = new Hono();
  for (const shape of SHAPES) {
    app.post(shape.proxyRoute, limit, (c) =>
      handleProxy(context, shape.name, c.req.raw, deliveryOf(c)),
    );
  }
  app.post("/v1/messages/count_tokens", limit, (c) =>
    handleCountTokens(context, c.req.raw, deliveryOf(c)),
  );
  return app;
}
