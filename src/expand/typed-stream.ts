import { isRecord } from "../wire/is-record.js";
import { eventJson, type SseEvent } from "./sse.js";
import type { StreamAggregator, StreamOpening } from "./stream-aggregator.js";
import type { AssistantTurn } from "./turn.js";

/**
 * A stream whose every event is a JSON object with a `type` (Anthropic Messages, OpenAI
 * Responses). An event of any other form fails the stream: it goes to the client as it is. The
 * opening is decided once; a failure decides it as `through`.
 */
export abstract class TypedEventStream implements StreamAggregator {
  opening: StreamOpening | undefined;
  protected failed = false;

  push(event: SseEvent): void {
    if (this.failed) return;
    const data = eventJson(event);
    if (!isRecord(data) || typeof data.type !== "string") this.fail();
    else this.onEvent(data.type, data, event);
  }

  abstract finish(): AssistantTurn | undefined;

  /** One event of the stream, `data` its parsed JSON, `event` as it was received. */
  protected abstract onEvent(type: string, data: Record<string, unknown>, event: SseEvent): void;

  protected decide(opening: StreamOpening): void {
    this.opening ??= opening;
  }

  protected fail(): void {
    this.failed = true;
    this.decide("through");
  }
}
