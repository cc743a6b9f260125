import { isRecord } from "../wire/is-record.js";
import type { UsageReading } from "../wire/shape.js";
import type { ServedUsage } from "./usage.js";

/** A response body as relayed: a stream, a text read whole, or none. */
export type TappedBody = ReadableStream<Uint8Array> | string | null;

/** A JSON body larger than this is not held for its usage (model answers are far smaller). */
export const MAX_JSON_USAGE_BYTES = 8 * 1024 * 1024;

/**
 * `body` as it is, byte for byte, read by the client at its own pace; `onUsage` is called once
 * when the body has been read whole, with the usage it carried as its wire shape reads it
 * (`usage`; undefined when none could be read), and never when the body broke off or the client
 * left. A stream is observed as its chunks pass, each after it was handed on; a text is read
 * after the response is on its way.
 */
export function tapUsage(
  body: TappedBody,
  usage: UsageReading,
  onUsage: (served: ServedUsage | undefined) => void,
): TappedBody {
  if (body === null) return body;
  if (typeof body === "string") {
    setImmediate(() => onUsage(usageOfJson(usage, body)));
    return body;
  }
  const reader = body.getReader();
  const reading = new UsageReader(usage);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        onUsage(reading.finish());
        return;
      }
      controller.enqueue(value);
      reading.push(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The usage of a whole JSON response body, or undefined. */
function usageOfJson(usage: UsageReading, text: string): ServedUsage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isRecord(value) ? usage.served(value.usage) : undefined;
}

/** A line of an event stream longer than this is not held for its usage. */
const MAX_LINE_CHARS = 1024 * 1024;

/**
 * Follows a body chunk by chunk: a JSON document (held, within a bound) or an event stream. Of a
 * stream only the `data:` lines that mention `"usage"` are parsed (the providers write each
 * event's JSON on one line); a chunk without the word costs one search.
 */
class UsageReader {
  readonly #decoder = new TextDecoder();
  #mode: "json" | "sse" | "skip" | undefined;
  readonly #json: string[] = [];
  #jsonBytes = 0;
  /** The stream's text after its last line end, in the pieces it arrived in. */
  #line: string[] = [];
  /** The length of `#line`'s pieces together. */
  #lineLength = 0;
  #usage: Record<string, unknown> | undefined;

  constructor(private readonly reading: UsageReading) {}

  push(chunk: Uint8Array): void {
    const text = this.#decoder.decode(chunk, { stream: true });
    this.#mode ??= modeOf(text);
    if (this.#mode === "json") {
      this.#jsonBytes += chunk.byteLength;
      if (this.#jsonBytes > MAX_JSON_USAGE_BYTES) {
        this.#mode = "skip";
        this.#json.length = 0;
      } else this.#json.push(text);
    } else if (this.#mode === "sse") {
      this.#lines(text, false);
    }
  }

  finish(): ServedUsage | undefined {
    const rest = this.#decoder.decode();
    if (this.#mode === "json") return usageOfJson(this.reading, this.#json.join("") + rest);
    if (this.#mode !== "sse") return undefined;
    this.#lines(rest, true);
    return this.reading.served(this.#usage);
  }

  /**
   * Reads the complete lines `text` ends (all of it at the end of the stream). Text before the
   * last line end holds none, so only `text` is searched; a line longer than the bound is dropped.
   */
  #lines(text: string, last: boolean): void {
    const end = last ? text.length : Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
    if (end < 0) {
      this.#lineLength += text.length;
      if (this.#lineLength > MAX_LINE_CHARS) {
        this.#line = [];
        this.#lineLength = 0;
      } else this.#line.push(text);
      return;
    }
    this.#line.push(text.slice(0, end));
    const complete = this.#line.join("");
    const rest = text.slice(end + 1);
    this.#line = [rest];
    this.#lineLength = rest.length;
    if (!complete.includes('"usage"')) return;
    for (const line of complete.split(/\r\n|\r|\n/)) {
      if (line.startsWith("data:") && line.includes('"usage"')) this.#data(line.slice(5));
    }
  }

  /** Keeps the usage one event's data carries. */
  #data(text: string): void {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return;
    }
    if (isRecord(data)) this.#usage = this.reading.fromEvent(data, this.#usage);
  }
}

/** Whether a body's first text opens a JSON document, an event stream, or neither yet. */
function modeOf(text: string): "json" | "sse" | undefined {
  const start = text.trimStart();
  if (start === "") return undefined;
  return start.startsWith("{") ? "json" : "sse";
}
