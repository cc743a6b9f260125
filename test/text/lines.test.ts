import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasMoreLinesThan, linesOf, splitLines } from "../../src/text/lines.js";

describe("linesOf", () => {
  it("splits on newlines, a final newline not starting a line", () => {
    expect(linesOf("a\nb\n")).toEqual(["a", "b"]);
    expect(linesOf("a\nb")).toEqual(["a", "b"]);
    expect(linesOf("\n\n")).toEqual(["", ""]);
    expect(linesOf("")).toEqual([""]);
  });

  it("gives a long text's collapse and its fidelity check one array, short texts in between", () => {
    const long = Array.from({ length: 5000 }, (_, row) => `{"row":${row},"level":"info"}`).join(
      "\n",
    );
    expect(long.length).toBeGreaterThan(64 * 1024);
    const first = linesOf(long);
    // The component reduces the request's other outputs before the guard checks its change.
    linesOf("a short output\nof two lines");
    expect(linesOf(long)).toBe(first);
    // An equal text that is another string reads the same lines.
    expect(linesOf(`${long} `.slice(0, -1))).toBe(first);
    expect(first).toHaveLength(5000);
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
