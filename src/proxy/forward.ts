import type { UpstreamClient, UpstreamRequest } from "../upstream/client.js";
import { relayedResponseHeaders } from "../upstream/headers.js";
import type { ProxyEvents } from "./events.js";
import type { Delivery } from "./handle.js";
import { relayBody } from "./relay-body.js";
import { upstreamFailureResponse } from "./upstream-failure.js";

export interface ForwardOptions {
  readonly events: Pick<ProxyEvents, "onUpstreamFailure">;
  readonly delivery: Delivery;
  /** The service's own response headers, set on the upstream's. */
  readonly headers?: Headers;
}

/**
 * One request passed to the upstream with no expand loop (`POST /v1/messages/count_tokens`,
 * `GET /v1/models`): the upstream's status, headers and body go back as they came, error
 * statuses included, with the hygiene of every proxy route (§10); an upstream that gives no
 * usable response is answered as upstreamFailureResponse says, never naming its address.
 */
export async function forwardRequest(
  client: UpstreamClient,
  call: UpstreamRequest,
  options: ForwardOptions,
): Promise<Response> {
  const { delivery } = options;
  try {
    const upstream = await client.request(call);
    const headers = relayedResponseHeaders(upstream.headers);
    for (const [name, value] of options.headers ?? []) headers.set(name, value);
    const body = relayBody(upstream.body, delivery.outgoing, (end) => delivery.onBodyEnd?.(end));
    return new Response(body, {
      status: upstream.status,
      statusText: upstream.statusText,
      headers,
    });
  } catch (error) {
    return upstreamFailureResponse(error, call.upstream, call.signal, options.events);
  }
}
