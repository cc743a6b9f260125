import { codeAt } from "../text/char-code.js";
/** One server-sent event: its `event:` name (if any) and its `data:` lines joined by "\n". */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * An incremental server-sent-events parser (WHATWG event-stream rules): feed decoded text in
 * chunks of any size, get back every event completed so far. Lines end in CRLF, LF or CR.
 */
export class SseParser {
  /** The line begun and not yet ended, in the pieces it arrived in: joined once it ends. */
  #pending: string[] = [];
  #skipLineFeed = false;
  #event: string | undefined;
  #data: string[] = [];

  push(chunk: string): SseEvent[] {
    let start = 0;
    // A CR that ended the last chunk ends its line; an LF that opens this one belongs to it. A
    // chunk of no text leaves that open.
    if (this.#skipLineFeed && chunk !== "") {
      if (codeAt(chunk, 0) === 10 /* \n */) start = 1;
      this.#skipLineFeed = false;
    }
    const events: SseEvent[] = [];
    // Earlier chunks left no line end behind: only this one is searched.
    for (;;) {
      const lineEnd = nextLineEnd(chunk, start);
      if (lineEnd < 0) break;
      const line = this.#ended(chunk.slice(start, lineEnd));
      if (codeAt(chunk, lineEnd) === 13 /* \r */) {
        if (lineEnd + 1 === chunk.length) {
          this.#skipLineFeed = true;
          start = lineEnd + 1;
        } else {
          start = codeAt(chunk, lineEnd + 1) === 10 ? lineEnd + 2 : lineEnd + 1;
        }
      } else {
        start = lineEnd + 1;
      }
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    if (start < chunk.length) this.#pending.push(chunk.slice(start));
    return events;
  }

  /** Events still pending at the end of the stream (a final event without its blank line). */
  end(): SseEvent[] {
    const rest = this.#ended("");
    const events: SseEvent[] = [];
    if (rest !== "") {
      const event = this.#line(rest);
      if (event !== undefined) events.push(event);
    }
    const last = this.#line("");
    if (last !== undefined) events.push(last);
    return events;
  }

  /** The whole line whose last piece is `tail`: what came before it in earlier chunks, then it. */
  #ended(tail: string): string {
    if (this.#pending.length === 0) return tail;
    this.#pending.push(tail);
    const line = this.#pending.join("");
    this.#pending = [];
    return line;
  }

  #line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.#data.length === 0) {
        this.#event = undefined;
        return undefined;
      }
      const event = { event: this.#event, data: this.#data.join("\n") };
      this.#event = undefined;
      this.#data = [];
      return event;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    return undefined;
  }
}

function nextLineEnd(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const code = codeAt(text, at);
    if (code === 10 || code === 13) return at;
  }
  return -1;
}

/** An event's data parsed as JSON; undefined for data that is not JSON. */
export function eventJson(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data) as unknown;
  } catch {
    return undefined;
  }
}
