import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OutputLines } from "../../../src/components/cmdfilter/output-lines.js";
import { pytest } from "../../../src/components/cmdfilter/pytest.js";
import { cmdfilter } from "../../../src/components/cmdfilter.js";
import { componentsSchema } from "../../../src/config/schema.js";
import { fakeContext, toolOutputs } from "../../support/component-context.js";
import { PROPERTY_RUNS } from "../../support/property-runs.js";

/**
 * The reference: which lines a pytest run drops, as the patterns with backtracking find them.
 * pytest.ts finds the same lines without reading a line again from every `::` or every space.
 */
const PASSED = /^\S+::\S.*\sPASSED\b|^PASSED \S+::\S/;
const UNITTEST_OK = /^test\w* \([\w.]+\)(?: .*)? \.\.\. ok$/;
const PROGRESS = /^(?:\S+\.py\s+)?[.sxX]+\s*(?:\[\s*\d+%\])?\s*$/;

function referenceKind(line: string): string | undefined {
  if (PASSED.test(line) || UNITTEST_OK.test(line)) return "passed test";
  return PROGRESS.test(line) ? "progress line" : undefined;
}

/** Whitespace of every kind: spaces and tabs, line ends within a line, and what is neither. */
const space = fc.constantFrom(" ", "  ", "\t", "\r", "\u2028", "\u2029", "\u00a0", "\v", "\f");
/** Pieces of test ids, statuses, progress marks and percentages. */
const word = fc.constantFrom(
  "tests/a.py",
  "a.py",
  "::",
  "::test_x",
  "x",
  "PASSED",
  "PASSEDx",
  "FAILED",
  ".",
  "..s",
  "xX",
  "F",
  "[",
  "]",
  "%",
  "7",
  "[ 40%]",
  "[100%]",
  "test_a (pkg.Case) ... ok",
);
const line = fc.array(fc.oneof(space, word), { maxLength: 10 }).map((pieces) => pieces.join(""));

const options = { ...componentsSchema.parse({}).cmdfilter, min_tokens: 0 };

/** The filtered text in off mode (no marker), or undefined. */
function filtered(command: string, text: string): string | undefined {
  const outputs = toolOutputs([{ text, call: { input: { command } } }]);
  return cmdfilter.reduce(outputs[0]!, options, fakeContext(outputs, { mode: "off" })) as
    | string
    | undefined;
}

describe("pytest filter", () => {
  it("drops the lines the backtracking patterns drop, as the same kinds", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 4 }), (lines) => {
        const plan = pytest.plan(new OutputLines(lines.join("\n")), ["pytest"]);
        expect(Array.from(plan.drop)).toEqual(lines.map(referenceKind));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it.each([
    ["tests/a.py::test_x PASSED [ 10%]", "passed test"],
    ["a::b\u00a0PASSED", "passed test"],
    // `PASSED` on the line after a `\r` or `\u2028` is not this test's status.
    ["a::b x\r PASSED", undefined],
    ["a::b\rPASSED", "passed test"],
    ["tests/a.py ..s  \t [ 40%] ", "progress line"],
    [".. [\u00a040%]", "progress line"],
    [". [40%", undefined],
  ])("%j is dropped as %s", (text, kind) => {
    expect(referenceKind(text)).toBe(kind);
    expect(pytest.plan(new OutputLines(text), ["pytest"]).drop[0]).toBe(kind);
  });

  // With backtracking, each of these lines takes time quadratic in its length (minutes); read as
  // pytest.ts reads them, a few milliseconds. Neither is a passed test or a progress line.
  it.each([
    ["a word of 900 000 colons", `a${":".repeat(900_000)}`],
    ["progress marks and 900 000 spaces", `.${" ".repeat(900_000)}x`],
  ])("keeps %s", (_name, hostile) => {
    const text = [
      "tests/a.py::test_x PASSED                                             [ 50%]",
      hostile,
      "1 passed in 0.10s",
    ].join("\n");
    expect(filtered("pytest -q", text)).toBe(
      ["\u2026 (1 passed test)", hostile, "1 passed in 0.10s"].join("\n"),
    );
  });
});
