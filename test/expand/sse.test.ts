import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type SseEvent, SseParser } from "../../src/expand/sse.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

const STREAM =
  'event: message_start\r\ndata: {"a":1}\r\n\r\n: keep-alive comment\n\ndata: line one\ndata: line two\n\nevent: ping\rdata:{}\r\rdata: [DONE]\n\n';
const EVENTS: SseEvent[] = [
  { event: "message_start", data: '{"a":1}' },
  { event: undefined, data: "line one\nline two" },
  { event: "ping", data: "{}" },
  { event: undefined, data: "[DONE]" },
];

/** Feeds `text` in pieces of `size` characters and collects every event. */
function parse(text: string, size: number): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (let at = 0; at < text.length; at += size)
    events.push(...parser.push(text.slice(at, at + size)));
  events.push(...parser.end());
  return events;
}

describe("SseParser", () => {
  it.each([1, 2, 3, 7, 1000])("gives the same events whatever the chunk size (%i)", (size) => {
    expect(parse(STREAM, size)).toEqual(EVENTS);
  });

  it.each([
    ["a final event without its blank line", "data: last", [{ event: undefined, data: "last" }]],
    ["an event name without data", "event: ping\n\n", []],
    ["a field without a colon", "data\n\n", [{ event: undefined, data: "" }]],
    ["a value without the space", "data:x\n\n", [{ event: undefined, data: "x" }]],
  ])("handles %s", (_, text, events) => {
    expect(parse(text, 1)).toEqual(events);
    expect(parse(text, 100)).toEqual(events);
  });
});

/**
 * The reference: the parser as it was when it kept the stream's unended text as one string,
 * appended each chunk to it and read it again from its start.
 */
class ReferenceParser {
  #buffer = "";
  #skipLineFeed = false;
  #event: string | undefined;
  #data: string[] = [];

  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.#skipLineFeed && text.startsWith("\n")) text = text.slice(1);
    this.#skipLineFeed = false;
    const searched = this.#buffer.length;
    this.#buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const lineEnd = referenceLineEnd(this.#buffer, Math.max(start, searched));
      if (lineEnd < 0) break;
      const line = this.#buffer.slice(start, lineEnd);
      if (this.#buffer.charCodeAt(lineEnd) === 13) {
        if (lineEnd + 1 === this.#buffer.length) {
          this.#skipLineFeed = true;
          start = lineEnd + 1;
        } else {
          start = this.#buffer.charCodeAt(lineEnd + 1) === 10 ? lineEnd + 2 : lineEnd + 1;
        }
      } else {
        start = lineEnd + 1;
      }
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  end(): SseEvent[] {
    const rest = this.#buffer;
    this.#buffer = "";
    const events: SseEvent[] = [];
    if (rest !== "") {
      const event = this.#line(rest);
      if (event !== undefined) events.push(event);
    }
    const last = this.#line("");
    if (last !== undefined) events.push(last);
    return events;
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

function referenceLineEnd(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 10 || code === 13) return at;
  }
  return -1;
}

/** Lines of every kind a stream holds, some long, some with characters of two UTF-16 units. */
const sseLine = fc.oneof(
  fc.constantFrom(
    "",
    "data",
    "data:",
    "data: ",
    "data:  two spaces",
    ": comment",
    ":",
    "event: ping",
    "event:",
    "event",
    "id: 7",
    "retry: 10",
    "\ufeffdata: after a BOM",
    "data: é€😀",
    "dat",
    "Data: not a field",
  ),
  fc
    .tuple(fc.constantFrom("data: ", "data:", "event: ", ": ", "x"), fc.string({ unit: "binary" }))
    .map(([field, value]) => field + value.replace(/[\r\n]/g, "")),
  fc.integer({ min: 100, max: 5000 }).map((length) => `data: ${"y".repeat(length)}`),
);
const lineEnd = fc.constantFrom("\n", "\r", "\r\n");
const stream = fc
  .array(fc.tuple(sseLine, lineEnd), { maxLength: 30 })
  .chain((lines) =>
    fc.tuple(
      fc.constant(lines.map(([line, end]) => line + end).join("")),
      fc.oneof(sseLine, fc.constant("")),
    ),
  )
  .map(([body, last]) => body + last);

/** `text` cut at `cuts` (positions in UTF-16 units, anywhere: inside a CRLF or a surrogate pair). */
function cutAt(text: string, cuts: number[]): string[] {
  const ends = [...cuts.map((cut) => cut % (text.length + 1)), text.length].sort((a, b) => a - b);
  let at = 0;
  return ends.map((end) => {
    const piece = text.slice(at, end);
    at = end;
    return piece;
  });
}

/** What each push and the end give, in order. */
function pushed(parser: SseParser | ReferenceParser, chunks: string[]): SseEvent[][] {
  return [...chunks.map((chunk) => parser.push(chunk)), parser.end()];
}

describe("SseParser on any chunking", () => {
  it("gives at each push the events the parser that read its text again gave", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 40 }), (text, cuts) => {
        const chunks = cutAt(text, cuts).filter((chunk) => chunk !== "");
        expect(pushed(new SseParser(), chunks)).toEqual(pushed(new ReferenceParser(), chunks));
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("gives the events of the whole stream read at once, empty chunks included", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 40 }), (text, cuts) => {
        const whole = pushed(new SseParser(), [text]).flat();
        const chunks = cutAt(text, cuts).flatMap((chunk) => [chunk, ""]);
        expect(pushed(new SseParser(), chunks).flat()).toEqual(whole);
        expect(whole).toEqual(pushed(new ReferenceParser(), [text]).flat());
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("gives the same events for a stream whose bytes are cut inside its characters", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 40 }), (text, cuts) => {
        const bytes = new TextEncoder().encode(text);
        const ends = [...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length].sort(
          (a, b) => a - b,
        );
        const decoder = new TextDecoder();
        const parser = new SseParser();
        const events: SseEvent[] = [];
        let at = 0;
        for (const end of ends) {
          events.push(...parser.push(decoder.decode(bytes.slice(at, end), { stream: true })));
          at = end;
        }
        events.push(...parser.push(decoder.decode()), ...parser.end());
        expect(events).toEqual(
          pushed(new ReferenceParser(), [new TextDecoder().decode(bytes)]).flat(),
        );
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("keeps an LF that follows a CR across a chunk of no text as the end of the same line", () => {
    const parser = new SseParser();
    const events = [parser.push("data: a\r"), parser.push(""), parser.push("\ndata: b\n\n")];
    expect(events.flat()).toEqual([{ event: undefined, data: "a\nb" }]);
    expect(parse("data: a\r\ndata: b\n\n", 100)).toEqual(events.flat());
  });

  // Appended to what came before and read again from its start, such a line took time
  // quadratic in its length: minutes for 8 MB.
  it.each([
    ["LF", "\n"],
    ["CR", "\r"],
    ["CRLF", "\r\n"],
  ])("reads an 8 MB data line that arrives in 1 kB chunks (%s)", (_, end) => {
    const value = "x".repeat(8 * 1024 * 1024);
    const text = `event: big${end}data: ${value}${end}${end}data: next${end}${end}`;
    expect(parse(text, 1024)).toEqual([
      { event: "big", data: value },
      { event: undefined, data: "next" },
    ]);
  });
});
