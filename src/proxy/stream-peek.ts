import type { StreamAggregator, StreamOpening } from "../expand/parse-sse.js";
import { SseParser } from "../expand/sse.js";

/**
 * A response stream being read: the raw chunks read so far (kept byte for byte), the reader for
 * the rest, and the aggregator every event read so far went through.
 */
export class PeekedStream {
  readonly chunks: Uint8Array[] = [];
  #done = false;
  #failed = false;
  readonly #parser = new SseParser();
  readonly #decoder = new TextDecoder();

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    readonly aggregator: StreamAggregator,
  ) {}

  /** Reads until the aggregator knows how the stream opens (or the stream ends or fails). */
  async peek(): Promise<StreamOpening> {
    while (this.aggregator.opening === undefined && (await this.#readOne())) {}
    return this.aggregator.opening ?? "through";
  }

  /** Reads the rest of the stream; false when it failed before its end. */
  async drain(): Promise<boolean> {
    while (await this.#readOne()) {}
    return !this.#failed;
  }

  /** The whole stream as the client must see it: every chunk read so far, then the rest. */
  replay(): ReadableStream<Uint8Array> {
    const { chunks, reader } = this;
    let next = 0;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const buffered = chunks[next];
        if (buffered !== undefined) {
          chunks[next++] = EMPTY;
          controller.enqueue(buffered);
          return;
        }
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
  }

  /** Discards the rest of the stream (a continuation replaces it). */
  async discard(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  async #readOne(): Promise<boolean> {
    if (this.#done) return false;
    let result: Awaited<ReturnType<typeof this.reader.read>>;
    try {
      result = await this.reader.read();
    } catch {
      // The replay reads the same error from the reader again, after the buffered bytes.
      this.#done = true;
      this.#failed = true;
      return false;
    }
    if (result.done) {
      this.#done = true;
      this.#feed(this.#parser.push(this.#decoder.decode()));
      this.#feed(this.#parser.end());
      return false;
    }
    this.chunks.push(result.value);
    this.#feed(this.#parser.push(this.#decoder.decode(result.value, { stream: true })));
    return true;
  }

  #feed(events: ReturnType<SseParser["push"]>): void {
    for (const event of events) this.aggregator.push(event);
  }
}

const EMPTY = new Uint8Array(0);
