import type { ServerResponse } from "node:http";
import { type Context, Hono } from "hono";
import { CacheObserver, type CacheObserverEvents } from "../cache/observed.js";
import type { Compactor } from "../compactor.js";
import type { Config } from "../config/schema.js";
import type { ProxyEvents } from "../proxy/events.js";
import { type Delivery, handleProxy, type ProxyContext } from "../proxy/handle.js";
import type { BodyEnd } from "../proxy/relay-body.js";
import type { Store } from "../store/types.js";
import { UpstreamClient } from "../upstream/client.js";
import { SHAPES } from "../wire/registry.js";
import { limitBody } from "./body-limit.js";

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
  const delivery = (c: Context): Delivery => {
    let settle: (end: BodyEnd) => void = () => {};
    c.set(
      "bodyEnd",
      new Promise<BodyEnd>((resolve) => {
        settle = resolve;
      }),
    );
    // On Node's HTTP server the adapter passes the response being written.
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    return { outgoing, onBodyEnd: settle };
  };
  for (const shape of SHAPES) {
    app.post(shape.proxyRoute, limit, (c) =>
      handleProxy(context, shape.name, c.req.raw, delivery(c)),
    );
  }
  return app;
}
