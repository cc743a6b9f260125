import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closingQuote, hasUnusualEscape } from "../../src/wire/json-string.js";

/** `value` as JSON between other text, and where its closing quote is. */
function embedded(value: string, before = '{"content":', after = ',"role":"tool"}') {
  const spelled = JSON.stringify(value);
  return {
    text: `${before}${spelled}${after}`,
    open: before.length,
    close: before.length + spelled.length - 1,
  };
}

/** Strings of quotes, backslashes and escaped JSON: the shapes the escape-dense path reads. */
const ESCAPY = ['"', "\\", '\\"', "\n", "\u2028", "é", "😀", "a", '{"k":"v"}', " "];

describe("closingQuote", () => {
  it("finds the closing quote of any JSON string, escapes or not", () => {
    const escapy = fc
      .array(fc.constantFrom(...ESCAPY), { maxLength: 2000 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "grapheme", maxLength: 300 }), escapy), (value) => {
        const { text, open, close } = embedded(value);
        expect(closingQuote(text, open)).toBe(close);
      }),
      { numRuns: 400 },
    );
  });

  it("reads a JSON-lines log as one string, past the bound of one match", () => {
    // Over a thousand escaped quotes: several matches of the escape-dense path.
    const log = Array.from({ length: 200 }, (_, line) =>
      JSON.stringify({ ts: `10:00:${line}`, msg: 'said "hi" \\ left', path: "/a\\b" }),
    ).join("\n");
    const { text, open, close } = embedded(log);
    expect(closingQuote(text, open)).toBe(close);
    const twice = embedded(JSON.stringify(log));
    expect(closingQuote(twice.text, twice.open)).toBe(twice.close);
  });

  it("reads a string of millions of escapes without overflowing the stack", () => {
    const { text, open, close } = embedded('"'.repeat(3_000_000));
    expect(closingQuote(text, open)).toBe(close);
  });

  it.each([
    ["a few escapes", '"abc\\"def'],
    ["many escapes", `"${'\\"x'.repeat(600)}`],
    ["a final backslash", `"${'\\"'.repeat(40)}\\`],
    ["an escaped last quote", `"${'\\"'.repeat(40)}`],
  ])("is -1 for a string that never closes (%s)", (_name, text) => {
    expect(closingQuote(text, 0)).toBe(-1);
  });

  it("ends at an escaped backslash before the quote", () => {
    for (const count of [1, 5, 20]) {
      const text = `"${"x\\\\".repeat(count)}" tail`;
      expect(closingQuote(text, 0)).toBe(text.indexOf('" tail'));
    }
  });
});

describe("hasUnusualEscape", () => {
  /** A string literal as a client may spell it: each character as is, or escaped. */
  const spelled = fc
    .array(
      fc.oneof(
        fc.constantFrom("a", "é", "😀", '\\"', "\\\\", "\\n", "\\t", "\\/", "\\b"),
        fc.integer({ min: 0, max: 0x7f }).map((code) => `\\u${code.toString(16).padStart(4, "0")}`),
        fc
          .integer({ min: 0, max: 0x1f })
          .map((code) => `\\u${code.toString(16).padStart(4, "0").toUpperCase()}`),
        fc.constantFrom("\\ud83d\\ude00", "\\ud800", "\\u00e9"),
      ),
      { maxLength: 30 },
    )
    .map((parts) => `"${parts.join("")}"`);

  it("is false exactly when the literal is JSON.stringify's spelling of its value", () => {
    fc.assert(
      fc.property(spelled, (raw) => {
        const value = JSON.parse(raw) as string;
        const canonical = raw === JSON.stringify(value);
        // Lone surrogates are left to the slow check even when spelled canonically.
        const lone = /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f]/i.test(
          raw,
        );
        if (!lone) expect(hasUnusualEscape(raw)).toBe(!canonical);
        else expect(hasUnusualEscape(raw)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("finds an unusual escape past the escapes one match steps over", () => {
    // Hundreds of escapes of JSON.stringify's own before (or without) an unusual one.
    const unit = '\\"x\\\\\\u001b\\n'; // four escapes
    const own = unit.repeat(400);
    for (const unusual of ["\\/", "\\u0041", "\\u001B", "\\u0009"]) {
      for (const units of [0, 1, 63, 64, 65, 250, 400]) {
        const at = units * unit.length;
        const raw = `"${own.slice(0, at)}${unusual}${own.slice(at)}"`;
        expect(hasUnusualEscape(raw)).toBe(true);
      }
    }
    expect(hasUnusualEscape(`"${own}"`)).toBe(false);
    const log = Array.from({ length: 2000 }, (_, line) =>
      JSON.stringify({ line, msg: 'said "hi"', path: "C:\\x" }),
    ).join("\n");
    expect(hasUnusualEscape(JSON.stringify(log))).toBe(false);
    expect(hasUnusualEscape(JSON.stringify('"'.repeat(3_000_000)))).toBe(false);
  });

  it("reads a terminal log's escapes as JSON.stringify's own", () => {
    const log = Array.from(
      { length: 100 },
      (_, line) => `\u001b[32mok\u001b[0m ${line}\r\n\t`,
    ).join("");
    expect(hasUnusualEscape(JSON.stringify(log))).toBe(false);
    expect(hasUnusualEscape('"a\\/b"')).toBe(true);
    expect(hasUnusualEscape('"\\u0009"')).toBe(true);
    expect(hasUnusualEscape('"\\\\u0041"')).toBe(false);
  });
});
