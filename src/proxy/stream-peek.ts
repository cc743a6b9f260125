import { SseParser } from "../expand/sse.js";
import type { StreamAggregator, StreamOpening } from "../expand/stream-aggregator.js";
import type { HeldBody, HeldRead } from "./held-body.js";

/** How far a held event stream was read: its end, its failure, or a bound of the hold. */
export type StreamStop = Exclude<HeldRead, "chunk">;

/**
 * A response event stream being held: every event read so far went through the aggregator, so
 * it knows how the stream opens and, once the stream is read to its end, the assistant turn.
 */
export class PeekedStream {
  readonly #parser = new SseParser();
  readonly #decoder = new TextDecoder();

  constructor(
    readonly body: HeldBody,
    readonly aggregator: StreamAggregator,
  ) {}

  /**
   * Reads until the aggregator knows how the stream opens. `stop` is set when the read ended
   * first: the stream ended or failed, or a bound of the hold was reached undecided.
   */
  async peek(): Promise<{ opening: StreamOpening; stop?: StreamStop }> {
    while (this.aggregator.opening === undefined) {
      const stop = await this.#readOne();
      if (stop !== undefined) return { opening: this.aggregator.opening ?? "through", stop };
    }
    return { opening: this.aggregator.opening };
  }

  /** Reads the rest of the stream: `end` when it was read whole. */
  async drain(): Promise<StreamStop> {
    for (;;) {
      const stop = await this.#readOne();
      if (stop !== undefined) return stop;
    }
  }

  async #readOne(): Promise<StreamStop | undefined> {
    const { outcome, chunk } = await this.body.read();
    if (outcome === "chunk" && chunk) {
      this.#feed(this.#parser.push(this.#decoder.decode(chunk, { stream: true })));
      return undefined;
    }
    if (outcome === "end") {
      this.#feed(this.#parser.push(this.#decoder.decode()));
      this.#feed(this.#parser.end());
    }
    return outcome as StreamStop;
  }

  #feed(events: ReturnType<SseParser["push"]>): void {
    for (const event of events) this.aggregator.push(event);
  }
}
