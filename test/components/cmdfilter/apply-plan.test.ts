import { describe, expect, it } from "vitest";
import { applyPlan, type LinePlan } from "../../../src/components/cmdfilter/filter.js";

const plan = (drop: Record<number, string>, notes: Record<number, string> = {}): LinePlan => ({
  drop: Object.assign<string[], Record<number, string>>([], drop),
  notes: new Map(Object.entries(notes).map(([index, note]) => [Number(index), note])),
});

const output = [
  "collecting the suite of tests",
  "tests/test_a.py::test_one PASSED",
  "tests/test_a.py::test_two PASSED",
  "tests/test_a.py::test_three FAILED",
  "tests/test_a.py::test_four PASSED",
  "===== 1 failed, 3 passed in 0.10s =====",
];

describe("applyPlan", () => {
  it.each<[string, LinePlan, string[] | undefined]>([
    [
      "a note in place of each run, counting its kinds",
      plan({ 1: "passed test", 2: "passed test", 4: "passed test" }),
      [output[0]!, "… (2 passed tests)", output[3]!, "… (1 passed test)", output[5]!],
    ],
    [
      "one note for a run of several kinds, in order of appearance",
      plan({ 1: "passed test", 2: "progress line" }),
      [output[0]!, "… (1 passed test, 1 progress line)", ...output.slice(3)],
    ],
    [
      "an error line kept inside a planned run, splitting it",
      plan({ 1: "line", 2: "line", 3: "line", 4: "line" }),
      [output[0]!, "… (2 lines)", output[3]!, "… (1 line)", output[5]!],
    ],
    [
      "the filter's own note closing a run",
      plan({ 1: "passed test", 2: "passed test" }, { 2: "… (2 more tests)" }),
      [output[0]!, "… (2 more tests)", ...output.slice(3)],
    ],
    [
      "a run kept whole when its note would be longer",
      plan({ 0: "line of an unusually verbose description" }),
      undefined,
    ],
    ["nothing planned", plan({}), undefined],
  ])("writes %s", (_, linePlan, expected) => {
    expect(applyPlan(output, linePlan)).toEqual(expected);
  });

  it("keeps the first and last non-blank lines when every line is planned away", () => {
    const boilerplate = ["", ...Array.from({ length: 6 }, (_, i) => `Setting up pkg${i} ...`), ""];
    const all = plan(Object.fromEntries(boilerplate.map((_, index) => [index, "setup line"])));
    expect(applyPlan(boilerplate, all)).toEqual([
      "",
      "Setting up pkg0 ...",
      "… (4 setup lines)",
      "Setting up pkg5 ...",
      "",
    ]);
  });

  it("never returns a note-only or empty result for a one-line output", () => {
    const single = ["Requirement already satisfied: requests in /usr/lib (2.31.0)"];
    expect(applyPlan(single, plan({ 0: "line" }))).toBeUndefined();
  });
});
