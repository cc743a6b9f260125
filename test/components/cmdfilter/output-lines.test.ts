import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jest } from "../../../src/components/cmdfilter/jest.js";
import { OutputLines } from "../../../src/components/cmdfilter/output-lines.js";
import { PROPERTY_RUNS } from "../../support/property-runs.js";

/** Whitespace of every kind `\s` matches, line ends among it, and what it does not (U+0085). */
const space = fc.constantFrom(
  " ",
  "\t",
  "\n",
  "\r",
  "\u2028",
  "\u00a0",
  "\v",
  "\f",
  "\u3000",
  "\u0085",
);

describe("OutputLines", () => {
  it("reads the lines split gives, an empty last one after a final newline too", () => {
    const text = fc
      .array(fc.oneof(space, fc.constantFrom("a", "✓", "\ud83d", "line")), { maxLength: 20 })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(text, (value) => {
        const lines = new OutputLines(value);
        const split = value.split("\n");
        expect(lines.count).toBe(split.length);
        expect(Array.from({ length: lines.count }, (_, index) => lines.at(index))).toEqual(split);
        for (let index = 0; index < lines.count; index++) {
          expect(value.slice(lines.start(index), lines.end(index))).toBe(split[index]);
        }
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });
});

describe("jest filter", () => {
  /** The reference: a passing test or file as the patterns read one line made a string. */
  const PASSED = /^\s*[✓✔√]\s/;
  const PASSED_FILE = /^\s*PASS\s+\S/;
  const referenceKind = (line: string) =>
    PASSED.test(line) ? "passed test" : PASSED_FILE.test(line) ? "passed file" : undefined;

  it("drops the lines the patterns drop when each line is read on its own", () => {
    const piece = fc.oneof(
      space,
      fc.constantFrom("✓", "✔", "√", "✕", "PASS", "PAS", "PASSx", "FAIL", "a", "src/a.test.ts"),
    );
    const text = fc.array(piece, { maxLength: 16 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(text, (value) => {
        const { drop } = jest.plan(new OutputLines(value), ["jest"]);
        expect(Array.from(drop)).toEqual(value.split("\n").map(referenceKind));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it.each([
    ["  ✓ adds numbers (3 ms)", "passed test"],
    ["  ✓", undefined],
    ["  ✓\r", "passed test"],
    [" PASS  src/a.test.ts", "passed file"],
    [" PASS ", undefined],
    ["\u3000√\u00a0ok", "passed test"],
  ])("%j is dropped as %s", (text, kind) => {
    expect(referenceKind(text)).toBe(kind);
    expect(jest.plan(new OutputLines(`${text}\n  ✓\nPASS\n`), ["jest"]).drop[0]).toBe(kind);
  });
});
