import { describe, expect, it } from "vitest";
import {
  FACT_HEAD_LINES,
  FACT_MAX_LINES,
  FACT_TAIL_LINES,
} from "../../../src/components/cmdfilter/fact-collapse.js";
import { cmdfilter } from "../../../src/components/cmdfilter.js";
import { componentsSchema, type MarkerMode } from "../../../src/config/schema.js";
import { fakeContext, idOf, toolOutputs } from "../../support/component-context.js";

/**
 * Search results and diffs through cmdfilter: all of it, or over the budget the head, one note
 * counting what was left out, and the tail — never a per-file cap, never a thinned hunk.
 */
const options = { ...componentsSchema.parse({}).cmdfilter, min_tokens: 0 };

function filtered(command: string, text: string, mode: MarkerMode = "off") {
  const outputs = toolOutputs([{ text, call: { input: { command } } }]);
  const context = fakeContext(outputs, { mode });
  return { result: cmdfilter.reduce(outputs[0]!, options, context), context };
}

const lines = (...items: string[]) => items.join("\n");
const matches = (count: number, path = "lib/matplotlib/text.py") =>
  Array.from({ length: count }, (_, i) => `${path}:${i * 7 + 1}:    def get_${i}(self):`);
const head = FACT_HEAD_LINES;
const tail = FACT_TAIL_LINES;

describe("cmdfilter on search results", () => {
  it.each<[string, string, string]>([
    ["a single-file grep -n with 91 matches", "grep -n 'def ' text.py", lines(...matches(91))],
    ["grep | head -40", "grep -rn 'def ' lib | head -40", lines(...matches(40))],
    ["matches at the budget", "rg -n 'def '", lines(...matches(FACT_MAX_LINES), "")],
    ["a listing at the budget", "find . -name '*.py'", lines(...matches(FACT_MAX_LINES))],
  ])("returns %s whole", (_, command, text) => {
    expect(filtered(command, text).result).toBeUndefined();
    expect(filtered(command, text, "full").result).toBeUndefined();
  });

  const many = matches(300);
  it.each<[MarkerMode, string]>([
    ["off", lines(...many.slice(0, head), "… 180 more matches", ...many.slice(-tail))],
    [
      "full",
      lines(
        ...many.slice(0, head),
        "… 180 more matches",
        ...many.slice(-tail),
        `<<cg:${idOf(lines(...many))}>>`,
      ),
    ],
  ])("collapses matches over the budget to a head and a tail (%s mode)", (mode, expected) => {
    const { result, context } = filtered("grep -rn 'def ' lib", lines(...many), mode);
    expect(result).toBe(expected);
    if (mode === "full") expect(context.stashed.get(idOf(lines(...many)))).toBe(lines(...many));
  });

  it("counts matches and lines apart when context lines were left out", () => {
    const withContext = Array.from({ length: 80 }, (_, i) => [
      `src/a.py:${i * 4 + 1}:match ${i}`,
      `src/a.py-${i * 4 + 2}-after ${i}`,
      "--",
    ]).flat();
    const { result } = filtered("grep -rn -A1 match src", lines(...withContext));
    expect(result).toBe(
      lines(
        ...withContext.slice(0, head),
        "… 40 more matches (120 lines)",
        ...withContext.slice(-tail),
      ),
    );
  });

  it("counts the entries of a listing, keeping a final newline", () => {
    const entries = Array.from({ length: 250 }, (_, i) => `./src/components/file${i}.ts`);
    const { result } = filtered("find src -type f", `${lines(...entries)}\n`);
    expect(result).toBe(
      `${lines(...entries.slice(0, head), "… 130 more entries", ...entries.slice(-tail))}\n`,
    );
  });

  it("counts matches whose text holds an error word as matches", () => {
    const errors = matches(250).map((line) => `${line} raise ValueError()`);
    const { result } = filtered("grep -rn ValueError lib", lines(...errors));
    expect(result).toBe(
      lines(...errors.slice(0, head), "… 130 more matches", ...errors.slice(-tail)),
    );
  });

  it("never hides an error the search printed: such an output stays whole", () => {
    const found = matches(250);
    found.splice(150, 0, "grep: lib/secret: Permission denied");
    expect(filtered("grep -rn 'def ' lib", lines(...found)).result).toBeUndefined();
    const entries = Array.from({ length: 250 }, (_, i) => `./src/file${i}.ts`);
    entries.splice(150, 0, "find: './secret': Permission denied");
    expect(filtered("find .", lines(...entries)).result).toBeUndefined();
  });
});

describe("cmdfilter on diffs", () => {
  const hunk = (file: number) => [
    `diff --git a/src/f${file}.py b/src/f${file}.py`,
    `index 3b18e5${file}..a9c4f2${file} 100644`,
    `--- a/src/f${file}.py`,
    `+++ b/src/f${file}.py`,
    "@@ -1,12 +1,11 @@",
    ...Array.from({ length: 10 }, (_, i) => ` context_${i} = ${i}`),
    "-",
    "+value = 2",
  ];

  it("returns a diff under the budget whole: no dropped index lines, no thinned context", () => {
    const text = lines(...hunk(1), ...hunk(2));
    expect(filtered("git diff", text).result).toBeUndefined();
    expect(filtered("git show HEAD", text, "full").result).toBeUndefined();
  });

  it("collapses a diff over the budget to a head and a tail, counting files left out", () => {
    const diff = Array.from({ length: 12 }, (_, file) => hunk(file)).flat();
    const omitted = diff.length - head - tail;
    const { result } = filtered("git diff", lines(...diff));
    expect(diff.length).toBeGreaterThan(FACT_MAX_LINES);
    expect(result).toBe(
      lines(
        ...diff.slice(0, head),
        `… ${omitted} more diff lines (5 more files)`,
        ...diff.slice(-tail),
      ),
    );
  });
});
