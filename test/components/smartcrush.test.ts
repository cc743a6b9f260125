import { describe, expect, it } from "vitest";
import { smartcrush } from "../../src/components/smartcrush.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { JSON_DOCUMENT_MAX_CHARS } from "../../src/content/json-limit.js";
import { fakeContext, idOf, toolOutputs } from "../support/component-context.js";

const defaults = componentsSchema.parse({}).smartcrush;
const noMinimum = { ...defaults, min_tokens: 0 };

function run(text: string, options = noMinimum, mode: MarkerMode = "off") {
  const outputs = toolOutputs([text]);
  const context = fakeContext(outputs, { mode });
  return { result: smartcrush.reduce(outputs[0]!, options, context), context };
}

const events = [
  { id: 1, msg: "start" },
  { id: 2, msg: "ok" },
  { id: 3, msg: "ok" },
  { id: 4, msg: "ok" },
  { id: 5, msg: "Disk FAILURE on sda" },
  { id: 6, msg: "ok" },
  { id: 7, msg: "ok" },
  { id: 8, msg: "done" },
];
const eventsText = JSON.stringify(events, null, 2);
const kept =
  '[{"id":1,"msg":"start"},{"id":2,"msg":"ok"},{"id":3,"msg":"ok"},{"id":5,"msg":"Disk FAILURE on sda"},{"id":7,"msg":"ok"},{"id":8,"msg":"done"}]';

describe("smartcrush", () => {
  it.each<[MarkerMode, string]>([
    ["full", `${kept} [6 of 8 items shown] <<cg:${idOf(eventsText)}>>`],
    ["summary", `${kept} [6 of 8 items shown] \u27eacg\u27eb`],
    ["off", `${kept} [6 of 8 items shown]`],
  ])("keeps first, last and notable items in %s mode", (mode, expected) => {
    const { result, context } = run(eventsText, noMinimum, mode);
    expect(result).toBe(expected);
    if (mode === "full") expect(context.stashed.get(idOf(eventsText))).toBe(eventsText);
  });

  it.each([
    ["error", { e: "ConnectionError" }],
    ["exception", { note: "raised an Exception" }],
    ["panic", { text: "kernel PANIC" }],
    ["fatal", { level: "fatal" }],
    ["traceback", { tb: "Traceback (most recent call last)" }],
    ["fail in a key", { failed: 0 }],
  ])("keeps an item mentioning %s", (_, notable) => {
    const items: unknown[] = Array.from({ length: 7 }, (_, n) => n);
    items[4] = notable;
    expect(run(JSON.stringify(items)).result).toBe(
      `[0,1,2,${JSON.stringify(notable)},5,6] [6 of 7 items shown]`,
    );
  });

  it("keeps number spellings and escapes of kept items", () => {
    const text = '[1.0, 1e3, 12345678901234567890, "\\u00e9", 5, 6, 7]';
    expect(run(text).result).toBe("[1.0,1e3,12345678901234567890,6,7] [5 of 7 items shown]");
  });

  it("crushes the one array inside an object envelope", () => {
    const text = JSON.stringify({ total: 8, events, next: null }, null, 1);
    expect(run(text).result).toBe(`{"total":8,"events":${kept},"next":null} [6 of 8 items shown]`);
  });

  it.each([
    ["fewer than min_items", JSON.stringify([1, 2, 3, 4])],
    ["every item kept", JSON.stringify([1, 2, 3, 4, 5])],
    ["every item notable", JSON.stringify(Array.from({ length: 9 }, () => ({ error: null })))],
    [
      "an envelope with two long arrays",
      JSON.stringify({ a: [1, 2, 3, 4, 5, 6, 7], b: [1, 2, 3, 4, 5, 6, 7] }),
    ],
    ["an envelope without arrays", JSON.stringify({ a: 1, b: "x" })],
    [
      "a nested array deeper than the envelope",
      JSON.stringify({ a: { b: [1, 2, 3, 4, 5, 6, 7] } }),
    ],
    ["invalid JSON", "[1, 2, 3, 4, 5, 6, 7,]"],
    ["text", "1\n2\n3\n4\n5\n6\n7"],
    ["empty", ""],
  ])("leaves %s alone", (_, text) => {
    expect(run(text).result).toBeUndefined();
  });

  it("respects min_tokens", () => {
    expect(run(eventsText, defaults).result).toBeUndefined();
    const many = Array.from({ length: 60 }, (_, id) => ({ id, status: "ok", detail: "synced" }));
    const result = run(JSON.stringify(many), defaults).result;
    expect(result).toBe(
      `${JSON.stringify([...many.slice(0, 3), ...many.slice(58)])} [5 of 60 items shown]`,
    );
  });

  it("handles unicode and CRLF-formatted JSON", () => {
    const text = '[\r\n "α",\r\n "β",\r\n "γ",\r\n "δ",\r\n "ε",\r\n "🚀 error"\r\n]';
    expect(run(text, { ...noMinimum, keep_first: 1, keep_last: 1 }).result).toBe(
      '["α","🚀 error"] [2 of 6 items shown]',
    );
  });

  it("crushes a document over the parsed length as one under it, from its outline", () => {
    // Items at the edges and just inside them are notable too: each is kept once, in order.
    const failing = new Set([0, 3, 4, 5000, 23_996, 23_997, 23_999]);
    const pods = Array.from({ length: 24_000 }, (_, id) => ({
      id,
      name: `pod-${id}`,
      phase: failing.has(id) ? "Failed" : "Running",
    }));
    const text = JSON.stringify(pods);
    expect(text.length).toBeGreaterThan(JSON_DOCUMENT_MAX_CHARS);
    const shown = pods.filter((pod) => pod.id < 3 || pod.id >= 23_998 || failing.has(pod.id));
    expect(run(text).result).toBe(`${JSON.stringify(shown)} [10 of 24000 items shown]`);
  });

  it("is deterministic", () => {
    expect(run(eventsText, noMinimum, "full").result).toBe(
      run(eventsText, noMinimum, "full").result,
    );
  });
});
