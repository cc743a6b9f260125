import { classifyCalls } from "../expand/turn.js";
import type { Store } from "../store/types.js";
import type { UpstreamClient } from "../upstream/client.js";
import { ClientGoneError } from "../upstream/errors.js";
import { wireShape } from "../wire/registry.js";
import type { Provider } from "../wire/types.js";
import type { BailReason, ProxyEvents } from "./events.js";
import { resolveCalls } from "./resolve.js";
import { type Round, readRound } from "./round.js";

export interface LoopContext {
  readonly provider: Provider;
  readonly client: UpstreamClient;
  readonly store: Store;
  readonly maxRounds: number;
  readonly session: string;
  /** Marker ids present in this request's `system`/`messages`: the only ids that may resolve. */
  readonly allowed: ReadonlySet<string>;
  readonly headers: Headers;
  readonly search: string;
  readonly signal: AbortSignal;
  readonly events: ProxyEvents;
  /** Bytes of a response held back to see whether it calls expand (`upstream.max_expand_buffer_bytes`). */
  readonly holdBytes: number;
  /** Milliseconds a round may take to be decided (`upstream.first_byte_timeout_ms`). */
  readonly roundMs: number;
  /**
   * Takes the first round's body, read whole, when a continuation replaces it (its usage tells
   * what the server's cache held when the request arrived); otherwise it is discarded.
   */
  readonly onFirstReplaced?: ((round: Round) => void) | undefined;
}

export interface LoopResult {
  /** The response the client gets. */
  readonly round: Round;
  /** Continuation rounds made (upstream calls minus one). */
  readonly rounds: number;
}

/**
 * The host-side continuation loop (§8.2): while the upstream answers with nothing but expand
 * calls, resolve them, append the assistant turn and one tool result per call, and re-invoke,
 * at most `maxRounds` times. Any other answer goes to the client as the upstream sent it.
 */
export async function runExpandLoop(context: LoopContext, request: string): Promise<LoopResult> {
  let text = request;
  for (let rounds = 0; ; rounds++) {
    const hold = { limit: context.holdBytes, deadline: performance.now() + context.roundMs };
    const upstream = await context.client.send({
      provider: context.provider,
      body: text,
      headers: context.headers,
      search: context.search,
      signal: context.signal,
    });
    const round = await readRound(context.provider, upstream, hold);
    if (context.signal.aborted) throw new ClientGoneError();
    const next = await continuation(context, text, round, rounds);
    if ("bail" in next) {
      if (next.bail !== undefined) context.events.onBail?.(next.bail);
      return { round, rounds };
    }
    if (rounds === 0 && context.onFirstReplaced) context.onFirstReplaced(round);
    else await round.discard();
    context.events.onRound?.();
    text = next.request;
  }
}

/** The next request text, or why there is none (`bail: undefined`: the response is final). */
type Next = { readonly request: string } | { readonly bail: BailReason | undefined };

async function continuation(
  context: LoopContext,
  text: string,
  round: Round,
  rounds: number,
): Promise<Next> {
  if (round.cut) return { bail: round.cut };
  if (round.aggregationFailed) return { bail: "aggregation_failed" };
  const { turn } = round;
  if (turn === undefined) return { bail: undefined };
  const calls = classifyCalls(turn);
  if (calls.expand.length === 0) return { bail: undefined };
  if (calls.others > 0) return { bail: "other_tool" };
  if (rounds >= context.maxRounds) return { bail: "max_rounds" };
  const { results, resolved } = await resolveCalls(
    context.store,
    context.session,
    calls.expand,
    context.allowed,
    context.events,
  );
  // A call with no usable id, or an id this request does not carry, is answered with the
  // placeholder: the client never declared the expand tool and cannot answer it. Only calls
  // that are all of ids the store no longer holds go back as they are.
  const answerable = calls.expand.some(
    (call) => call.id === undefined || !context.allowed.has(call.id),
  );
  if (resolved.length === 0 && !answerable) return { bail: "nothing_resolved" };
  const request = wireShape(context.provider).continuation(text, turn, results);
  return request === undefined ? { bail: "no_messages" } : { request };
}
