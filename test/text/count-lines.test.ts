import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countLines } from "../../src/text/lines.js";

describe("countLines", () => {
  it("counts the lines of a split on newlines, no further than one past the limit", () => {
    // Lines of a character or two in runs longer than one read unit by unit, among long ones.
    const line = fc.oneof(
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 10, max: 20 }),
      fc.integer({ min: 100, max: 9000 }),
    );
    const text = fc
      .array(fc.tuple(line, fc.integer({ min: 1, max: 3000 })), { maxLength: 6 })
      .map((runs) =>
        runs.map(([length, times]) => Array<string>(times).fill("y".repeat(length)).join("\n")),
      )
      .map((runs) => runs.join("\n"));
    fc.assert(
      fc.property(text, fc.option(fc.nat({ max: 20_000 })), (input, limit) => {
        const lines = input.split("\n").length;
        expect(countLines(input)).toBe(lines);
        if (limit !== null) expect(countLines(input, limit)).toBe(Math.min(lines, limit + 1));
      }),
      { numRuns: 200 },
    );
  });
});
