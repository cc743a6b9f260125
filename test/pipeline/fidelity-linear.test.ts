import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkFidelity } from "../../src/pipeline/fidelity.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/** The reference: a placeholder as one pattern tells it, with backtracking. */
const PLACEHOLDER = /^\[[^\n]*\S[^\n]*\]$/;

const items = (count: number) => Array.from({ length: count }, (_, index) => ({ id: index }));

describe("the fidelity check reads long lines and runs of whitespace in linear time", () => {
  it("tells a one-line placeholder as the pattern does", () => {
    const line = fc
      .array(fc.constantFrom("[", "]", " ", "\t", "\r", "\u00a0", "\u2028", "a", "]x"), {
        maxLength: 8,
      })
      .map((parts) => parts.join(""))
      .filter((text) => text.trim() !== "");
    fc.assert(
      fc.property(line, (text) => {
        expect(checkFidelity("line 1\nline 2\n", text, "file", [])).toBe(
          PLACEHOLDER.test(text.trim()) ? undefined : "fact_thinned",
        );
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  it.each([
    ["after a space", " [2 of 5 items shown]", undefined],
    ["after a line end and before one", "\n[2 of 5 items shown]\n", undefined],
    ["after a no-break space", "\u00a0[2 of 5 items shown]", undefined],
    ["with nothing left out", " [5 of 5 items shown]", "json_broken"],
    ["followed by text", " [2 of 5 items shown] x", "json_broken"],
  ])("reads smartcrush's count %s", (_name, count, expected) => {
    const original = JSON.stringify(items(5));
    const kept = JSON.stringify([{ id: 0 }, { id: 4 }]);
    expect(checkFidelity(original, `${kept}${count}`, "json", [])).toBe(expected);
  });

  it("reads a placeholder line of 400,000 characters with no closing bracket", () => {
    // The pattern takes time quadratic in the line: about a minute.
    const line = `[${"a".repeat(400_000)}`;
    expect(checkFidelity("line 1\nline 2\n", line, "file", [])).toBe("fact_thinned");
  });

  it("reads a kept item of 400,000 spaces before smartcrush's count", () => {
    // A pattern opening with whitespace reads the run again from each of its characters.
    const original = JSON.stringify([{ note: `${" ".repeat(400_000)}x` }, ...items(6)]);
    const kept = JSON.stringify([{ note: `${" ".repeat(400_000)}x` }, { id: 5 }]);
    expect(checkFidelity(original, `${kept} [2 of 7 items shown]`, "json", [])).toBeUndefined();
  });
});
