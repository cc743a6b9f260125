import { describe, expect, it } from "vitest";
import { MAX_LINES_READ } from "../../src/pipeline/eligibility.js";
import { CLEAN, COLD, postCompact, testApp } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";

/**
 * A huge output among ordinary ones (§10 big bodies): collapsed to its head and tail with a note
 * saying how many lines were left out, in clean and in reversible mode, to at most 5 % of its
 * tokens.
 */
type Body = { messages: Array<{ content: string | null }> };
const LINES = 40_000;
const huge = Array.from({ length: LINES }, (_, index) =>
  index % 1000 === 999
    ? `src/unit-${index}.c:7:1: error: unknown type name 'sizet'`
    : `cc -O2 -c src/unit-${index}.c -o obj/unit-${index}.o`,
).join("\n");
const ordinary = Array.from({ length: 20 }, (_, index) => logOutput(30, `step-${index}`));
const body = openaiBody([...ordinary, huge]);

// No deadline: the result, not the speed, is under test (a loaded machine may be slow).
const NO_DEADLINE = { limits: { compact_timeout_ms: 600_000 } };

describe.each([
  ["clean", { ...CLEAN, ...NO_DEADLINE }],
  ["reversible", NO_DEADLINE],
])("a huge output in %s mode", (_mode, config) => {
  it("is collapsed to at most 5 % of its tokens with a note of what was left out", async () => {
    const { app } = testApp(config);
    const response = await postCompact(app, body, { headers: COLD });
    expect(response.status).toBe(200);
    const returned = (await response.json()) as Body;
    const text = returned.messages.at(-1)?.content as string;
    const lines = text.split("\n");
    expect(lines.slice(0, 20)).toEqual(huge.split("\n").slice(0, 20));
    expect(lines[20]).toContain(`\u2026 (${LINES - 40} lines omitted)`);
    expect(lines.slice(21, 41)).toEqual(huge.split("\n").slice(-20));
    const before = Number(response.headers.get("x-context-guru-tokens-before"));
    const after = Number(response.headers.get("x-context-guru-tokens-after"));
    // The huge output is most of the body: the whole body drops below 5 % of its tokens.
    expect(after / before).toBeLessThan(0.05);
  });
});

/**
 * An output of more lines than a component that reads lines reads in time (one character a
 * line, repeated: `yes`) is left to the bound: its head and tail with a count, never a
 * projection made line by line (extract would note it as repeated lines).
 */
describe.each([
  ["clean", { ...CLEAN, ...NO_DEADLINE }],
  ["reversible", NO_DEADLINE],
])("an output of millions of lines in %s mode", (_mode, config) => {
  const output = (lines: number) => Array<string>(lines).fill("y").join("\n");
  const compactedOutput = async (text: string) => {
    const { app } = testApp(config);
    const response = await postCompact(app, openaiBody([...ordinary, text]), { headers: COLD });
    expect(response.status).toBe(200);
    return ((await response.json()) as Body).messages.at(-1)?.content as string;
  };

  it("is collapsed without being read line by line", async () => {
    const lines = MAX_LINES_READ + 1;
    const text = await compactedOutput(output(lines));
    expect(text).toContain(`\u2026 (${lines - 40} lines omitted)`);
    expect(text).not.toContain("repeated");
    expect(text.split("\n").filter((line) => line === "y")).toHaveLength(40);
  });

  it("is read line by line up to that many lines", async () => {
    const text = await compactedOutput(output(MAX_LINES_READ));
    // The first 24 lines are not yet a segment long enough to drop; the lines after them repeat
    // them (up to the last few, too few to make one).
    expect(text.split("\n")[24]).toMatch(/^\u2026 \(repeated \d{7} lines\)$/);
    expect(text).not.toContain("lines omitted");
  });
});
