import type { Provider } from "../wire/types.js";
import { AnthropicStream } from "./parse-sse-anthropic.js";
import { OpenAIStream } from "./parse-sse-openai.js";
import { ResponsesStream } from "./parse-sse-responses.js";
import type { SseEvent } from "./sse.js";
import type { AssistantTurn } from "./turn.js";

/**
 * How a response stream opens: with a call of the expand tool, or with anything else (text,
 * another tool, an error) that belongs to the client as it is.
 */
export type StreamOpening = "expand" | "through";

/**
 * Reads a response stream event by event: decides as early as possible how it opens, and
 * aggregates the assistant turn (text, thinking with signature, tool calls from partial JSON).
 */
export interface StreamAggregator {
  push(event: SseEvent): void;
  /** Undefined while the events so far carry nothing decisive (role, thinking, whitespace). */
  readonly opening: StreamOpening | undefined;
  /** The whole turn once the stream ended, or undefined when it could not be aggregated. */
  finish(): AssistantTurn | undefined;
}

export function streamAggregator(provider: Provider): StreamAggregator {
  if (provider === "responses") return new ResponsesStream();
  return provider === "openai" ? new OpenAIStream() : new AnthropicStream();
}
