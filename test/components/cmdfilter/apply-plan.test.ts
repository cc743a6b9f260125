import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyPlan,
  isErrorLine,
  type LinePlan,
  runNote,
} from "../../../src/components/cmdfilter/filter.js";
import { OutputLines } from "../../../src/components/cmdfilter/output-lines.js";
import { PROPERTY_RUNS } from "../../support/property-runs.js";

const plan = (drop: Record<number, string>, notes: Record<number, string> = {}): LinePlan => ({
  drop: Object.assign<string[], Record<number, string>>([], drop),
  notes: new Map(Object.entries(notes).map(([index, note]) => [Number(index), note])),
});

const linesOf = (lines: readonly string[]) => new OutputLines(lines.join("\n"));

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
    expect(applyPlan(linesOf(output), linePlan)).toEqual(expected);
  });

  it("keeps the first and last non-blank lines when every line is planned away", () => {
    const boilerplate = ["", ...Array.from({ length: 6 }, (_, i) => `Setting up pkg${i} ...`), ""];
    const all = plan(Object.fromEntries(boilerplate.map((_, index) => [index, "setup line"])));
    expect(applyPlan(linesOf(boilerplate), all)).toEqual([
      "",
      "Setting up pkg0 ...",
      "… (4 setup lines)",
      "Setting up pkg5 ...",
      "",
    ]);
  });

  it("never returns a note-only or empty result for a one-line output", () => {
    const single = ["Requirement already satisfied: requests in /usr/lib (2.31.0)"];
    expect(applyPlan(linesOf(single), plan({ 0: "line" }))).toBeUndefined();
  });
});

/**
 * The reference: the lines left by a plan with each planned line tested for an error word on its
 * own, as applyPlan read them when an output's lines were all made strings first.
 */
function referenceApplyPlan(lines: readonly string[], plan: LinePlan): string[] | undefined {
  const drop: Array<string | undefined> = new Array(lines.length);
  let dropped = 0;
  for (let index = 0; index < lines.length; index++) {
    const kind = plan.drop[index];
    if (kind === undefined || isErrorLine(lines[index] as string)) continue;
    drop[index] = kind;
    dropped++;
  }
  if (dropped === 0 && plan.notes.size === 0) return undefined;
  const visible = [...lines.keys()].filter((index) => /\S/.test(lines[index] as string));
  if (visible.length > 0 && visible.every((index) => drop[index] !== undefined)) {
    drop[visible[0] as number] = undefined;
    drop[visible[visible.length - 1] as number] = undefined;
  }
  const kept: string[] = [];
  let run: { from: number; kinds: Map<string, number>; chars: number } | undefined;
  let reduced = false;
  const close = (to: number, note?: string) => {
    if (!run) return;
    const generated = note ?? runNote(run.kinds);
    if (note !== undefined || generated.length + 1 < run.chars) {
      kept.push(generated);
      reduced = true;
    } else kept.push(...lines.slice(run.from, to));
    run = undefined;
  };
  for (let index = 0; index < lines.length; index++) {
    const kind = drop[index];
    if (kind === undefined) {
      close(index);
      kept.push(lines[index] as string);
    } else {
      run ??= { from: index, kinds: new Map(), chars: 0 };
      run.kinds.set(kind, (run.kinds.get(kind) ?? 0) + 1);
      run.chars += (lines[index] as string).length + 1;
    }
    const note = plan.notes.get(index);
    if (note === undefined) continue;
    if (run) close(index + 1, note);
    else kept.push(note);
  }
  close(lines.length);
  return reduced ? kept : undefined;
}

describe("applyPlan over runs of planned lines", () => {
  /** Lines with error words (whole, cut, in any case), blanks and other text. */
  const line = fc
    .array(
      fc.constantFrom(
        "Error",
        "ERR",
        "or",
        "fail",
        "FaTaL",
        "not found",
        "not",
        "e",
        "x",
        " ",
        "\t",
        "\r",
        "✓",
        "ok",
      ),
      { maxLength: 6 },
    )
    .map((pieces) => pieces.join(""));
  const kind = fc.constantFrom(undefined, "passed test", "progress line");
  const planned = fc.array(fc.tuple(line, kind, fc.option(fc.constant("… (more)"))), {
    minLength: 1,
    maxLength: 12,
  });

  it("keeps the lines, notes and error lines that testing each line on its own keeps", () => {
    fc.assert(
      fc.property(planned, (items) => {
        const lines = items.map(([text]) => text);
        const plan: LinePlan = {
          drop: items.map(([, dropped]) => dropped),
          notes: new Map(
            items.flatMap(([, , note], index) => (note === null ? [] : [[index, note] as const])),
          ),
        };
        expect(applyPlan(linesOf(lines), plan)).toEqual(referenceApplyPlan(lines, plan));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });
});
