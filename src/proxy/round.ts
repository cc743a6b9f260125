import { parseJsonResponse } from "../expand/parse-json.js";
import type { AssistantTurn } from "../expand/turn.js";
import { wireShape } from "../wire/registry.js";
import type { Provider } from "../wire/types.js";
import { HeldBody, type HoldLimit } from "./held-body.js";
import { PeekedStream } from "./stream-peek.js";

/** A response body as the proxy relays it: a stream, a text read whole, or none. */
export type RoundBody = ReadableStream<Uint8Array> | string | null;

/** One upstream response, read just far enough to know whether the loop must continue it. */
export interface Round {
  readonly upstream: Response;
  /** The assistant turn when it may call the expand tool; undefined when it cannot. */
  readonly turn: AssistantTurn | undefined;
  /** The stream opened with an expand call but could not be aggregated. */
  readonly aggregationFailed: boolean;
  /**
   * The hold reached a bound (`upstream.max_expand_buffer_bytes`, or the round's first-byte
   * deadline) before it could tell: the response goes to the client as it is.
   */
  readonly cut: HoldLimit | undefined;
  /** True when the body flows to the client as it arrives (nothing held back past the peek). */
  readonly streamed: boolean;
  /** The body exactly as the upstream sent it (decoded); call once. */
  body(): RoundBody;
  /** Releases the body when a continuation replaces this response. */
  discard(): Promise<void>;
}

/** The bounds of holding one round's response: bytes, and a `performance.now()` deadline. */
export interface Hold {
  readonly limit: number;
  readonly deadline: number;
}

export async function readRound(
  provider: Provider,
  upstream: Response,
  hold: Hold,
): Promise<Round> {
  const passThrough = (streamed: boolean, body: () => RoundBody, cut?: HoldLimit): Round => ({
    upstream,
    turn: undefined,
    aggregationFailed: false,
    cut,
    streamed,
    body,
    discard: async () => {},
  });
  if (!upstream.ok || upstream.body === null) return passThrough(true, () => upstream.body);

  const held = new HeldBody(upstream.body.getReader(), hold.limit, hold.deadline);
  const replay = () => held.replay();
  const contentType = upstream.headers.get("content-type") ?? "";
  if (contentType.toLowerCase().startsWith("text/event-stream")) {
    const stream = new PeekedStream(held, wireShape(provider).response.stream());
    const peeked = await stream.peek();
    if (peeked.opening === "through") return passThrough(true, replay, limitOf(peeked.stop));
    const stop = await stream.drain();
    if (stop === "buffer_limit" || stop === "deadline") return passThrough(true, replay, stop);
    const turn = stop === "end" ? stream.aggregator.finish() : undefined;
    return {
      upstream,
      turn,
      aggregationFailed: turn === undefined,
      cut: undefined,
      streamed: false,
      body: replay,
      discard: () => held.discard(),
    };
  }

  // A JSON answer is held whole (within the same bounds) to see whether it calls expand.
  for (;;) {
    const { outcome } = await held.read();
    if (outcome === "chunk") continue;
    if (outcome !== "end") return passThrough(true, replay, limitOf(outcome));
    const text = held.text();
    let turn: AssistantTurn | undefined;
    try {
      turn = parseJsonResponse(wireShape(provider), JSON.parse(text), text);
    } catch {
      turn = undefined;
    }
    return { ...passThrough(false, () => text), turn };
  }
}

function limitOf(stop: string | undefined): HoldLimit | undefined {
  return stop === "buffer_limit" || stop === "deadline" ? stop : undefined;
}
