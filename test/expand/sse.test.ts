import { describe, expect, it } from "vitest";
import { type SseEvent, SseParser } from "../../src/expand/sse.js";

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
