import { utf8Text } from "../text/utf8.js";
import { forwardRequest } from "./forward.js";
import type { Delivery, ProxyContext } from "./handle.js";
import { prepareRequest, setPreparedHeaders } from "./prepare.js";
import { errorResponse } from "./upstream-failure.js";

/** Anthropic's count endpoint below `upstream.anthropic.base_url`, as its SDK lays it out. */
export const COUNT_TOKENS_PATH = "/v1/messages/count_tokens";

/**
 * `POST /v1/messages/count_tokens` (§2): the body is prepared exactly as `/v1/messages` would
 * prepare it at this point of the session (the same compaction, ledger replays and expand tool,
 * the same session and headers), as a dry run that records nothing — no stash, no ledger head —
 * so the session goes on as if the count had never been asked. The prepared body goes to the
 * Anthropic upstream's count endpoint and its answer back as it came: a count calls no tool, so
 * there is no expand loop, and it reports no cache usage to observe.
 */
export async function handleCountTokens(
  context: ProxyContext,
  request: Request,
  delivery: Delivery = {},
): Promise<Response> {
  const original = utf8Text(new Uint8Array(await request.arrayBuffer()));
  if (original === undefined) return errorResponse(400, "request body is not valid UTF-8");
  const prepared = await prepareRequest(context, original, {
    provider: "anthropic",
    headers: request.headers,
    signal: request.signal,
    dryRun: true,
  });
  if (prepared === "not_json") return errorResponse(400, "request body is not valid JSON");
  const headers = new Headers();
  setPreparedHeaders(headers, prepared);
  return forwardRequest(
    context.client,
    {
      upstream: "anthropic",
      path: COUNT_TOKENS_PATH,
      method: "POST",
      body: prepared.text,
      headers: request.headers,
      search: new URL(request.url).search,
      signal: request.signal,
    },
    { events: context.events, delivery, headers },
  );
}
