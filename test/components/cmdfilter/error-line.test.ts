import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isErrorLine } from "../../../src/components/cmdfilter/filter.js";

/** The rule as the filters document it: a line holding one of these words, in any case. */
const ERROR_WORDS = /error|fail|exception|panic|fatal|traceback|denied|not found/i;

/** Lines made of pieces of the error words, in mixed case, among other characters. */
const line = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "error",
        "err",
        "rror",
        "exception",
        "excep",
        "fail",
        "fa",
        "fatal",
        "tal",
        "panic",
        "pan",
        "traceback",
        "trace",
        "denied",
        "den",
        "not found",
        "not",
        " found",
        "e",
        "x",
      ),
      fc.constantFrom(" ", "\t", "\u00a0", "\r", "ſ", "K", "İ", "✓", "-", "a"),
    ),
    { maxLength: 12 },
  )
  .chain((pieces) =>
    fc
      .array(fc.boolean(), { minLength: pieces.join("").length, maxLength: pieces.join("").length })
      .map((upper) =>
        Array.from(pieces.join(""), (char, at) => (upper[at] ? char.toUpperCase() : char)).join(""),
      ),
  );

describe("isErrorLine", () => {
  it.each([
    ["  ✓ keeps the cache when full (3 ms)", false],
    ["    Error: expected 3 to be 4", true],
    ["FAIL src/a.test.ts", true],
    ["grep: x: Permission Denied", true],
    ["bash: foo: command NOT FOUND", true],
    ["not  found", false],
    ["fatl excepton", false],
  ])("%j → %s", (text, expected) => {
    expect(isErrorLine(text)).toBe(expected);
  });

  it("holds exactly the lines with an error word, in any case", () => {
    fc.assert(
      fc.property(line, (text) => {
        expect(isErrorLine(text)).toBe(ERROR_WORDS.test(text));
      }),
      { numRuns: 2000 },
    );
  });
});
