import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detectRun, runFailed } from "../../src/components/test-runs.js";
import { toolOutputs } from "../support/component-context.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/**
 * The reference: the summary lines and failure signatures with their indent read by `\s*`, which
 * reads on across line ends. test-runs.ts reads an indent within its own line.
 */
const SIGNATURES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^=*\s*(?:\d+ \w+(?: \w+)?, )*\d+ (?:passed|failed|errors?)\b.* in [\d.]+s\b.*$/m, "pytest"],
  [/^Tests:\s+(?:\d+ \w+, )*\d+ total$/m, "js test"],
  [/^\s*Test Files\s+.*\(\d+\)$/m, "js test"],
  [/^(?:ok|FAIL)\s+\S+\s+[\d.]+s$/m, "go test"],
  [/^test result: (?:ok|FAILED)\./m, "cargo test"],
  [/^\[INFO\] BUILD (?:SUCCESS|FAILURE)$/m, "maven"],
  [/^BUILD (?:SUCCESSFUL|FAILED) in \S+$/m, "gradle"],
];
const FAILURES: readonly RegExp[] = [
  /^=*\s*(?:\d+ \w+(?: \w+)?, )*[1-9]\d* (?:failed|errors?)\b.* in [\d.]+s\b/m,
  /^(?:!+ )?Interrupted: [1-9]\d* errors? during collection/m,
  /^FAILED \((?:failures|errors)=\d+/m,
  /^\s*(?:Tests|Test Suites|Test Files):?\s+(?:\d+ \w+, )*[1-9]\d* failed\b/m,
  /^\s*[1-9]\d* failing$/m,
  /^\s*(?:--- )?FAIL\b/m,
  /^test result: FAILED\./m,
  /^error(?:\[E\d{4}\])?: /m,
  /\berror TS\d+:/,
  /^g?make(?:\[\d+\])?: \*\*\* /m,
  /BUILD FAILURE|^BUILD FAILED\b|^FAILURE: Build failed|^Build FAILED\./m,
  /^npm (?:ERR!|error) /m,
  /Command failed with exit code [1-9]\d*/,
  /^\d+ examples?, [1-9]\d* failures?/m,
  /^FAILURES!$/m,
];

const referenceFailed = (text: string) => FAILURES.some((pattern) => pattern.test(text));
const referenceFamily = (text: string) => SIGNATURES.find(([pattern]) => pattern.test(text))?.[1];

/** Whitespace of every kind: spaces and tabs, line ends, and what is neither. */
const space = fc.constantFrom(
  " ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\u2028",
  "\u2029",
  "\u00a0",
  "\v",
  "\f",
  "\ufeff",
);
/** The summary lines and failure signatures, whole and in pieces. */
const word = fc.constantFrom(
  "1 failed in 0.5s",
  "2 passed in 0.5s",
  "2 passed, 3 errors in 0.5s",
  "Tests:  1 failed",
  "Test Files  1 passed (2)",
  "2 failing",
  "--- FAIL: TestAdd",
  "=",
  "===",
  "1 failed",
  "0 failed",
  "2 passed",
  "3 errors",
  "4 warnings",
  ", ",
  " in 0.5s",
  " ===",
  "Tests:",
  "Test Suites:",
  "Test Files",
  " (2)",
  "1 failing",
  "--- ",
  "FAIL",
  "FAILx",
  "x",
);
const text = fc.array(fc.oneof(space, word), { maxLength: 12 }).map((pieces) => pieces.join(""));

describe("test run headings at line starts", () => {
  it("finds a failure where the headings read across line ends find one", () => {
    fc.assert(
      fc.property(text, (output) => {
        expect(runFailed(output)).toBe(referenceFailed(output));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it("tells the runner by its summary line as the summaries read across line ends do", () => {
    fc.assert(
      fc.property(text, (output) => {
        expect(detectRun(toolOutputs([output])[0]!)?.family).toBe(referenceFamily(output));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it.each([
    ["\u00a0 1 failing", true],
    ["\r\n\t--- FAIL: TestAdd", true],
    ["\u2028== 1 failed in 0.1s", true],
    ["==\n 1 failed in 0.1s", true],
    ["x 1 failing", false],
  ])("%j failed: %s", (output, expected) => {
    expect(referenceFailed(output)).toBe(expected);
    expect(runFailed(output)).toBe(expected);
  });

  // Read across line ends, the headings take time quadratic in the run of blank lines (minutes
  // for these); read within a line, a few milliseconds.
  it.each([
    ["blank lines before a failure", `${"\n".repeat(500_000)}--- FAIL: TestAdd`, true],
    ["indented blank lines before a count", `${" \n".repeat(250_000)}\u00a0 2 failing`, true],
    ["\\r\\n blank lines and no failure", `${"\r\n".repeat(250_000)}ok`, false],
  ])("runFailed reads %s of 500 kB", (_name, output, expected) => {
    expect(runFailed(output)).toBe(expected);
  });

  it.each([
    [
      "blank lines before a go summary",
      `${"\n".repeat(500_000)}ok  \tex/pkg\t0.01s`,
      { family: "go test", target: "go test", failed: false },
    ],
    [
      "\\r\\n blank lines before a vitest summary",
      `${"\r\n".repeat(250_000)} Test Files  1 failed | 1 passed (2)`,
      { family: "js test", target: "js test", failed: true },
    ],
    ["blank lines and no summary", `${"\n".repeat(500_000)}done`, undefined],
  ])("detectRun reads %s of 500 kB", (_name, output, expected) => {
    expect(detectRun(toolOutputs([output])[0]!)).toEqual(expected);
  });
});
