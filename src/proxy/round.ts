import { parseJsonResponse } from "../expand/parse-json.js";
import { streamAggregator } from "../expand/parse-sse.js";
import type { AssistantTurn } from "../expand/turn.js";
import type { Provider } from "../wire/types.js";
import { PeekedStream } from "./stream-peek.js";

type Body = ConstructorParameters<typeof Response>[0];

/** One upstream response, read just far enough to know whether the loop must continue it. */
export interface Round {
  readonly upstream: Response;
  /** The assistant turn when it may call the expand tool; undefined when it cannot. */
  readonly turn: AssistantTurn | undefined;
  /** The stream opened with an expand call but could not be aggregated. */
  readonly aggregationFailed: boolean;
  /** True when the body flows to the client as it arrives (nothing buffered past the peek). */
  readonly streamed: boolean;
  /** The body exactly as the upstream sent it (decoded); call once. */
  body(): Body;
  /** Releases the body when a continuation replaces this response. */
  discard(): Promise<void>;
}

export async function readRound(provider: Provider, upstream: Response): Promise<Round> {
  const passThrough = (streamed: boolean, body: () => Body): Round => ({
    upstream,
    turn: undefined,
    aggregationFailed: false,
    streamed,
    body,
    discard: async () => {},
  });
  if (!upstream.ok || upstream.body === null) return passThrough(true, () => upstream.body);

  const contentType = upstream.headers.get("content-type") ?? "";
  if (contentType.toLowerCase().startsWith("text/event-stream")) {
    const stream = new PeekedStream(upstream.body.getReader(), streamAggregator(provider));
    if ((await stream.peek()) === "through") return passThrough(true, () => stream.replay());
    const complete = await stream.drain();
    const turn = complete ? stream.aggregator.finish() : undefined;
    return {
      upstream,
      turn,
      aggregationFailed: turn === undefined,
      streamed: false,
      body: () => stream.replay(),
      discard: () => stream.discard(),
    };
  }

  const text = await upstream.text();
  let turn: AssistantTurn | undefined;
  try {
    turn = parseJsonResponse(provider, JSON.parse(text));
  } catch {
    turn = undefined;
  }
  return { ...passThrough(false, () => text), turn };
}
