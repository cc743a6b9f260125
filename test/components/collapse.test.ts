import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collapse } from "../../src/components/collapse.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { fakeContext, idOf, toolOutputs } from "../support/component-context.js";

const defaults = componentsSchema.parse({}).collapse;
const small = { ...defaults, max_tokens: 1, head_lines: 2, tail_lines: 1 };
const numbered = (count: number) => Array.from({ length: count }, (_, n) => `line ${n + 1}`);

function run(text: string, options = small, mode: MarkerMode = "off") {
  const outputs = toolOutputs([text]);
  const context = fakeContext(outputs, { mode });
  return { result: collapse.reduce(outputs[0]!, options, context), context };
}

describe("collapse", () => {
  const text = numbered(6).join("\n");

  it.each<[MarkerMode, string]>([
    ["full", `line 1\nline 2\n\u2026 (3 lines omitted) <<cg:${idOf(text)}>>\nline 6`],
    ["summary", "line 1\nline 2\n\u2026 (3 lines omitted) \u27eacg\u27eb\nline 6"],
    ["off", "line 1\nline 2\n\u2026 (3 lines omitted)\nline 6"],
  ])("keeps head and tail lines in %s mode", (mode, expected) => {
    const { result, context } = run(text, small, mode);
    expect(result).toBe(expected);
    if (mode === "full") expect(context.stashed.get(idOf(text))).toBe(text);
  });

  it.each([
    [
      "a final newline kept, not counted",
      `${text}\n`,
      "line 1\nline 2\n\u2026 (3 lines omitted)\nline 6\n",
    ],
    [
      "one line omitted",
      numbered(4).join("\n"),
      "line 1\nline 2\n\u2026 (1 lines omitted)\nline 4",
    ],
    [
      "CRLF lines",
      numbered(5).join("\r\n"),
      "line 1\r\nline 2\r\n\u2026 (2 lines omitted)\nline 5",
    ],
    ["unicode", "α\nβ\nγ\nδ\n🚀", "α\nβ\n\u2026 (2 lines omitted)\n🚀"],
  ])("handles %s", (_, input, expected) => {
    expect(run(input).result).toBe(expected);
  });

  it.each([
    [0, 0, "\u2026 (6 lines omitted)"],
    [0, 2, "\u2026 (4 lines omitted)\nline 5\nline 6"],
    [3, 0, "line 1\nline 2\nline 3\n\u2026 (3 lines omitted)"],
  ])("with head %i and tail %i", (head, tail, expected) => {
    expect(run(text, { ...small, head_lines: head, tail_lines: tail }).result).toBe(expected);
  });

  it.each([
    ["exactly head + tail lines", numbered(3).join("\n")],
    ["fewer lines", "one line"],
    ["empty", ""],
  ])("leaves %s alone", (_, input) => {
    expect(run(input).result).toBeUndefined();
  });

  it("collapses only outputs over max_tokens", () => {
    const lines = numbered(1000);
    const large = lines.join("\n");
    expect(run(large, defaults).context.tokens(large)).toBeGreaterThan(2000);
    const { result } = run(large, defaults);
    expect(result).toBe(
      [...lines.slice(0, 20), "\u2026 (960 lines omitted)", ...lines.slice(980)].join("\n"),
    );
    const medium = numbered(300).join("\n");
    expect(run(medium, defaults).context.tokens(medium)).toBeLessThanOrEqual(2000);
    expect(run(medium, defaults).result).toBeUndefined();
  });

  it("is deterministic", () => {
    expect(run(text, small, "full").result).toBe(run(text, small, "full").result);
  });

  it("keeps the lines a split of the text would keep, found from its ends", () => {
    // The collapse as first written: every line split, the kept ones joined.
    const reference = (text: string, head: number, tail: number) => {
      const finalNewline = text.endsWith("\n");
      const lines = (finalNewline ? text.slice(0, -1) : text).split("\n");
      const omitted = lines.length - head - tail;
      if (omitted <= 0) return undefined;
      const kept = [
        ...lines.slice(0, head),
        `\u2026 (${omitted} lines omitted)`,
        ...lines.slice(lines.length - tail),
      ];
      return kept.join("\n") + (finalNewline ? "\n" : "");
    };
    const texts = fc
      .array(fc.constantFrom("a", "b", "\n", "\n", "\n", "\r", " "), { maxLength: 60 })
      // Over max_tokens (1), whatever the lines.
      .map((chars) => `over one token${chars.join("")}`);
    fc.assert(
      fc.property(texts, fc.nat(4), fc.nat(4), (text, head, tail) => {
        const options = { ...small, head_lines: head, tail_lines: tail };
        expect(run(text, options).result).toBe(reference(text, head, tail));
      }),
    );
  });
});
