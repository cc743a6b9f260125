/** Why reading a held body stopped short of its end. */
export type HoldLimit = "buffer_limit" | "deadline";
/** What one read of a held body gave. */
export type HeldRead = "chunk" | "end" | "failed" | HoldLimit;

const EMPTY = new Uint8Array(0);

/**
 * An upstream response body held back while the proxy decides what to do with it (§8.2), within
 * two bounds: at most `limit` bytes (`upstream.max_expand_buffer_bytes`) and until `deadline`
 * (a `performance.now()` time: the round's first-byte deadline). Reads stop at either bound
 * without losing a byte: a read still pending at the deadline is kept for the replay, which
 * gives the client every chunk held so far and then the rest as it arrives, the upstream's
 * failure included.
 */
export class HeldBody {
  readonly chunks: Uint8Array[] = [];
  #bytes = 0;
  #pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> | undefined;
  #ended = false;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly limit: number,
    private readonly deadline: number,
  ) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** Reads one chunk, unless a bound stops it first. */
  async read(): Promise<{ outcome: HeldRead; chunk?: Uint8Array }> {
    if (this.#ended) return { outcome: "end" };
    if (this.#bytes >= this.limit) return { outcome: "buffer_limit" };
    const left = this.deadline - performance.now();
    if (left <= 0) return { outcome: "deadline" };
    this.#pending ??= this.reader.read();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), left);
    });
    try {
      const result = await Promise.race([this.#pending, late]);
      if (result === "late") return { outcome: "deadline" };
      this.#pending = undefined;
      if (result.done) {
        this.#ended = true;
        return { outcome: "end" };
      }
      this.chunks.push(result.value);
      this.#bytes += result.value.length;
      return { outcome: "chunk", chunk: result.value };
    } catch {
      // The replay reads the same failure from the reader again, after the held bytes.
      this.#pending = undefined;
      return { outcome: "failed" };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The whole body as the client must see it: every chunk held, then the rest; call once. */
  replay(): ReadableStream<Uint8Array> {
    const { chunks, reader } = this;
    let next = 0;
    const take = () => {
      const pending = this.#pending;
      this.#pending = undefined;
      return pending ?? reader.read();
    };
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const held = chunks[next];
        if (held !== undefined) {
          chunks[next++] = EMPTY;
          controller.enqueue(held);
          return;
        }
        try {
          const { done, value } = await take();
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

  /** The body as text, once it was read to its end. */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }

  /** Drops the rest of the body (a continuation replaces it). */
  async discard(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}
