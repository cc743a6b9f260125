import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  lineAt,
  lineIndexOf,
  lineLength,
  linesMatching,
  NON_BLANK_CAP,
} from "../../src/text/line-index.js";

/** Texts of few distinct characters: equal lines, blank lines and empty lines are common. */
const texts = fc
  .array(fc.constantFrom("a", "b", "\n", "\n", "\r", " ", "\t", "\u00a0", "✓", "\u2028", "%"), {
    maxLength: 200,
  })
  .map((chars) => chars.join(""));

/** Two lines of one FNV-1a hash (found by search): equal hashes, different lines. */
const SAME_HASH = ["muhiqdgt", "nutagiji"] as const;

describe("lineIndexOf", () => {
  it("reads the lines split on newlines would give, and tells equal lines by id", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const lines = text.split("\n");
        const index = lineIndexOf(text);
        expect(index.count).toBe(lines.length);
        expect(Array.from({ length: index.count }, (_, line) => lineAt(index, line))).toEqual(
          lines,
        );
        const firstOf = new Map<string, number>();
        for (const [line, value] of lines.entries()) {
          expect(lineLength(index, line)).toBe(value.length);
          const first = firstOf.get(value);
          if (first === undefined) firstOf.set(value, line);
          // Equal ids exactly for equal lines.
          else expect(index.ids[line]).toBe(index.ids[first]);
          expect(index.nonBlank[line]).toBe(
            Math.min(NON_BLANK_CAP, value.replace(/\s/g, "").length),
          );
        }
        expect(index.distinct).toBe(firstOf.size);
        expect(new Set(index.ids).size).toBe(firstOf.size);
      }),
    );
  });

  it("gives different ids to different lines of one hash", () => {
    const [one, other] = SAME_HASH;
    const fnv = (text: string) => {
      let hash = 0x811c9dc5 | 0;
      for (const char of text) hash = Math.imul(hash ^ (char.codePointAt(0) as number), 0x01000193);
      return hash;
    };
    expect(fnv(one)).toBe(fnv(other));
    const index = lineIndexOf([one, other, one, other, "x"].join("\n"));
    expect(Array.from(index.ids)).toEqual([0, 1, 0, 1, 2]);
    expect(index.distinct).toBe(3);
  });

  it("counts non-blank characters up to its cap", () => {
    const index = lineIndexOf(`${"x".repeat(1000)}\n \t \n${" y".repeat(300)}`);
    expect(Array.from(index.nonBlank)).toEqual([NON_BLANK_CAP, 0, NON_BLANK_CAP]);
  });

  it("remembers the last long text, as an equal string or the same one", () => {
    const long = Array.from({ length: 20_000 }, (_, row) => `row ${row}`).join("\n");
    const first = lineIndexOf(long);
    lineIndexOf("short\ntext");
    expect(lineIndexOf(`${long} `.slice(0, -1))).toBe(first);
  });
});

describe("linesMatching", () => {
  const patterns = [/a/, /ab|ba/i, /%/, /[✓\u00a0]/u, /b{2,}/];

  it("finds the lines a pattern finds when each line is tested alone", () => {
    fc.assert(
      fc.property(texts, fc.constantFrom(...patterns), (text, pattern) => {
        const expected = text.split("\n").map((line) => (pattern.test(line) ? 1 : 0));
        expect(Array.from(linesMatching(lineIndexOf(text), pattern))).toEqual(expected);
      }),
    );
  });

  it("reads each pattern once a text, whatever flags it was given", () => {
    const index = lineIndexOf("error\nok\nERROR");
    const global = /error/gi;
    global.lastIndex = 3;
    expect(Array.from(linesMatching(index, global))).toEqual([1, 0, 1]);
    expect(global.lastIndex).toBe(3);
    expect(linesMatching(index, /error/gi)).toBe(linesMatching(index, global));
  });
});
