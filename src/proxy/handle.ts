import type { ServerResponse } from "node:http";
import type { CacheObserver } from "../cache/observed.js";
import type { Config } from "../config/schema.js";
import type { Store } from "../store/types.js";
import { utf8Text } from "../text/utf8.js";
import type { UpstreamClient } from "../upstream/client.js";
import { relayedResponseHeaders } from "../upstream/headers.js";
import { wireShape } from "../wire/registry.js";
import type { Provider } from "../wire/types.js";
import type { ProxyEvents } from "./events.js";
import { runExpandLoop } from "./expand-loop.js";
import { type PrepareDeps, prepareRequest, setPreparedHeaders } from "./prepare.js";
import { type BodyEnd, relayBody } from "./relay-body.js";
import type { RoundBody } from "./round.js";
import { errorResponse, upstreamFailureResponse } from "./upstream-failure.js";

export interface ProxyContext extends PrepareDeps {
  readonly config: Config;
  readonly store: Store;
  readonly client: UpstreamClient;
  readonly events: ProxyEvents;
  /** Records what the server served from its prompt cache against the prediction (§4a). */
  readonly observer: Pick<CacheObserver, "observeBody">;
}

/**
 * One proxied request (§8.2): compact → inject the expand tool → forward → the expand loop.
 * The client gets the final upstream response with the upstream's status, headers and body.
 */
/** The connection a proxied response is written to, when the server runs on Node's HTTP. */
export interface Delivery {
  readonly outgoing?: ServerResponse | undefined;
  /** Called once the response body has ended, however it ended. */
  readonly onBodyEnd?: (end: BodyEnd) => void;
}

export async function handleProxy(
  context: ProxyContext,
  provider: Provider,
  request: Request,
  delivery: Delivery = {},
): Promise<Response> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  const url = new URL(request.url);
  const original = utf8Text(bytes);
  if (original === undefined) return errorResponse(400, "request body is not valid UTF-8");
  const prepared = await prepareRequest(context, original, {
    provider,
    headers: request.headers,
    signal: request.signal,
  });
  if (prepared === "not_json") return errorResponse(400, "request body is not valid JSON");
  // What the server's cache held when the request arrived shows in the first round's usage: the
  // response the client gets, or the round a continuation replaced.
  const observe = (body: RoundBody) =>
    context.observer.observeBody(
      body,
      wireShape(provider).usage,
      prepared.session,
      prepared.prediction,
    );
  try {
    const { round, rounds } = await runExpandLoop(
      {
        provider,
        client: context.client,
        store: context.store,
        maxRounds: context.config.upstream.max_expand_rounds,
        session: prepared.session,
        allowed: prepared.allowed,
        headers: request.headers,
        search: url.search,
        signal: request.signal,
        events: context.events,
        holdBytes: context.config.upstream.max_expand_buffer_bytes,
        roundMs: context.config.upstream.first_byte_timeout_ms,
        onFirstReplaced: (replaced) => void drain(observe(replaced.body())),
      },
      prepared.text,
    );
    const headers = relayedResponseHeaders(round.upstream.headers);
    setPreparedHeaders(headers, prepared);
    headers.set("x-context-guru-expand-rounds", String(rounds));
    context.events.onResponse?.({ provider, streamed: round.streamed });
    const served = round.upstream.ok && rounds === 0 ? observe(round.body()) : round.body();
    const body = relayBody(served, delivery.outgoing, (end) => delivery.onBodyEnd?.(end));
    return new Response(body, {
      status: round.upstream.status,
      statusText: round.upstream.statusText,
      headers,
    });
  } catch (error) {
    return upstreamFailureResponse(error, provider, request.signal, context.events);
  }
}

/** Reads a held body to its end (a replaced round's, all in memory), whatever it holds. */
async function drain(body: RoundBody): Promise<void> {
  if (!(body instanceof ReadableStream)) return;
  const reader = body.getReader();
  try {
    while (!(await reader.read()).done);
  } catch {
    // A replaced round was read whole before it was replaced; nothing is left to fail.
  }
}
