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
 * Each wire shape has its own (WireShape.response.stream).
 */
export interface StreamAggregator {
  push(event: SseEvent): void;
  /** Undefined while the events so far carry nothing decisive (role, thinking, whitespace). */
  readonly opening: StreamOpening | undefined;
  /** The whole turn once the stream ended, or undefined when it could not be aggregated. */
  finish(): AssistantTurn | undefined;
}
