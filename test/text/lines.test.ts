import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  hasMoreLinesThan,
  lineAtStart,
  lineStartsOf,
  lineStartsOfLines,
  splitLines,
} from "../../src/text/lines.js";

describe("lineStartsOf", () => {
  const linesOf = (text: string) => {
    const lines = lineStartsOf(text);
    return Array.from({ length: lines.count }, (_, line) => lineAtStart(lines, line));
  };

  it("reads the lines of a split on newlines, a final newline not starting a line", () => {
    expect(linesOf("a\nb\n")).toEqual(["a", "b"]);
    expect(linesOf("a\nb")).toEqual(["a", "b"]);
    expect(linesOf("\n\n")).toEqual(["", ""]);
    expect(linesOf("")).toEqual([""]);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "\n", "\r", " ", "✓")).map((chars) => chars.join("")),
        (text) => {
          expect(linesOf(text)).toEqual(
            (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n"),
          );
          // The lines of an array are those lines, an empty last one included.
          const lines = text.split("\n");
          const fromLines = lineStartsOfLines(lines);
          expect(
            Array.from({ length: fromLines.count }, (_, at) => lineAtStart(fromLines, at)),
          ).toEqual(lines);
        },
      ),
    );
  });

  it("reads long texts one after another as split does, whatever their lines' lengths", () => {
    // Thousands of short lines, some long ones first: a text read after a shorter one, or whose
    // lines grow shorter past its start, needs more room than it was first given.
    const text = fc
      .record({
        long: fc.array(fc.nat(3000), { maxLength: 4 }),
        count: fc.integer({ min: 2000, max: 20_000 }),
        step: fc.nat(40),
        widest: fc.nat(40),
        final: fc.boolean(),
      })
      .map(({ long, count, step, widest, final }) => {
        const short = Array.from({ length: count }, (_, line) => (line * step) % (widest + 1));
        const body = [...long, ...short].map((length) => "x".repeat(length)).join("\n");
        return `${body.padEnd(64 * 1024, "y")}${final ? "\n" : ""}`;
      });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 3 }), (texts) => {
        for (const each of texts) {
          expect(linesOf(each)).toEqual(
            (each.endsWith("\n") ? each.slice(0, -1) : each).split("\n"),
          );
        }
      }),
      { numRuns: 20 },
    );
  });

  it("gives a long text's collapse and its fidelity check one reading, short texts in between", () => {
    const long = Array.from({ length: 5000 }, (_, row) => `{"row":${row},"level":"info"}`).join(
      "\n",
    );
    expect(long.length).toBeGreaterThan(64 * 1024);
    const first = lineStartsOf(long);
    // The component reduces the request's other outputs before the guard checks its change.
    lineStartsOf("a short output\nof two lines");
    expect(lineStartsOf(long)).toBe(first);
    // An equal text that is another string reads the same lines.
    expect(lineStartsOf(`${long} `.slice(0, -1))).toBe(first);
    expect(first.count).toBe(5000);
  });
});

describe("splitLines", () => {
  it("is split on newlines", () => {
    expect(splitLines("")).toEqual([""]);
    expect(splitLines("\n")).toEqual(["", ""]);
    expect(splitLines("a\n\nb\n")).toEqual(["a", "", "b", ""]);
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom("a", "\n", "\r", " ", "✓", "\u2028"))
          .map((chars) => chars.join("")),
        (text) => {
          expect(splitLines(text)).toEqual(text.split("\n"));
        },
      ),
    );
  });
});

describe("hasMoreLinesThan", () => {
  it("tells whether a split on newlines gives more than the limit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "\n", "\r", " "), { maxLength: 40 }).map((c) => c.join("")),
        fc.nat(20),
        (text, limit) => {
          expect(hasMoreLinesThan(text, limit)).toBe(text.split("\n").length > limit);
          // Asked again (remembered), the same answer.
          expect(hasMoreLinesThan(text, limit)).toBe(text.split("\n").length > limit);
        },
      ),
    );
  });
});
