import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LONG_TEXT_CHARS } from "../../src/text/last-read.js";
import {
  type LineIndex,
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

/**
 * Whether `index` reads `text` as its lines split on newlines would: lines, ids, counts. The
 * first line read otherwise is named (one expectation a text: texts of hundreds of thousands of
 * lines are read here).
 */
function expectReads(index: LineIndex, text: string): void {
  const lines = text.split("\n");
  expect(index.count).toBe(lines.length);
  expect([index.starts.length, index.ids.length, index.nonBlank.length]).toEqual([
    lines.length + 1,
    lines.length,
    lines.length,
  ]);
  const firstOf = new Map<string, number>();
  let misread: string | undefined;
  for (const [line, value] of lines.entries()) {
    const first = firstOf.get(value);
    if (first === undefined) firstOf.set(value, line);
    const nonBlank = Math.min(NON_BLANK_CAP, value.replace(/\s/g, "").length);
    if (lineAt(index, line) !== value || lineLength(index, line) !== value.length) {
      misread = `line ${line}: ${JSON.stringify(lineAt(index, line))}`;
    } else if (index.nonBlank[line] !== nonBlank) {
      misread = `line ${line}: ${index.nonBlank[line]} non-blank characters, not ${nonBlank}`;
    } else if (index.ids[line] !== index.ids[first ?? line]) {
      // Equal ids for equal lines (and, counted below, as many ids as distinct lines).
      misread = `line ${line}: id ${index.ids[line]}, not line ${first}'s`;
    }
    if (misread !== undefined) break;
  }
  expect(misread).toBeUndefined();
  expect(index.distinct).toBe(firstOf.size);
  expect(new Set(index.ids).size).toBe(firstOf.size);
}

/**
 * Long texts (indexed in the kept arrays): lines of a small pool repeated in a random order, so
 * equal lines, runs of one line and blank lines are common, of random lengths.
 */
const longTexts = fc
  .tuple(
    fc.array(fc.string({ unit: fc.constantFrom("a", "b", " ", "✓", "\t"), maxLength: 40 }), {
      minLength: 1,
      maxLength: 6,
    }),
    fc.array(fc.nat(), { minLength: 64, maxLength: 512 }),
    fc.integer({ min: 1, max: 4 }),
    // Each pick as a run of this many equal lines: most lines then repeat the one before.
    fc.integer({ min: 1, max: 12 }),
  )
  .map(([pool, picks, width, run]) => {
    const lines = picks.flatMap((pick) =>
      Array.from({ length: run }, () => (pool[pick % pool.length] as string).repeat(width)),
    );
    let text = lines.join("\n");
    // Past LONG_TEXT_CHARS whatever the pool: a last line of its own, as long as it takes.
    if (text.length < LONG_TEXT_CHARS) text += `\n${"z".repeat(LONG_TEXT_CHARS - text.length)}`;
    return text;
  });

describe("lineIndexOf", () => {
  it("reads long texts one after another as it reads each alone, in the arrays it keeps", () => {
    fc.assert(
      fc.property(fc.array(longTexts, { minLength: 2, maxLength: 4 }), (batch) => {
        for (const text of batch) {
          const index = lineIndexOf(text);
          expect(index.kept).toBe(true);
          expectReads(index, text);
          const expected = text.split("\n").map((line) => (/✓ ?a/.test(line) ? 1 : 0));
          expect(Array.from(linesMatching(index, /✓ ?a/))).toEqual(expected);
        }
      }),
      { numRuns: 25 },
    );
  });

  it("reads long stretches of equal lines, wherever they stop, as it reads each line", () => {
    // Stretches of one line (blank, a character, `y`, a status) hundreds or thousands long, each
    // stopped by a line that differs from it in one character somewhere, or by the text's end.
    const stretch = fc.record({
      line: fc.constantFrom("", "y", " ", "a b", "50% [=====>    ] 1.2 MB/s", "✓ ok"),
      length: fc.integer({ min: 1, max: 3000 }),
      differs: fc.option(fc.nat(), { nil: undefined }),
    });
    const stretches = fc.tuple(
      fc.array(stretch, { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      fc.constantFrom("", "x".repeat(LONG_TEXT_CHARS)),
    );
    fc.assert(
      fc.property(stretches, ([parts, newlineLast, ahead]) => {
        const lines: string[] = ahead === "" ? [] : [ahead];
        for (const { line, length, differs } of parts) {
          const run = Array<string>(length).fill(line);
          if (differs !== undefined) {
            const at = differs % length;
            const chars = [...line];
            chars[differs % (chars.length + 1)] = "z";
            run[at] = chars.join("");
          }
          lines.push(...run);
        }
        let text = lines.join("\n") + (newlineLast ? "\n" : "");
        if (text.length < LONG_TEXT_CHARS) text = `${"w".repeat(LONG_TEXT_CHARS)}\n${text}`;
        const index = lineIndexOf(text);
        expect(index.kept).toBe(true);
        expectReads(index, text);
      }),
      { numRuns: 60 },
    );
  });

  it("reads a long text whose lines grow shorter past its start, however many more there are", () => {
    // Long lines where the count is expected from, then each shorter kind of line in turn.
    const text = [
      ...Array.from({ length: 300 }, (_, row) => `${"long line ".repeat(25)}${row}`),
      ...Array.from({ length: 40_000 }, (_, row) => `${row % 977}`),
      ...Array<string>(200_000).fill("y"),
      ...Array<string>(100_000).fill(""),
      "last",
    ].join("\n");
    expectReads(lineIndexOf(text), text);
  });

  it("refuses a long text's index read after the next long text was indexed", () => {
    const first = Array.from({ length: 20_000 }, (_, row) => `first ${row % 7}`).join("\n");
    const second = Array.from({ length: 9_000 }, (_, row) => `second ${row % 5}`).join("\n");
    const index = lineIndexOf(first);
    // A short text is indexed in arrays of its own: the long text's index still holds.
    expect(lineIndexOf("short\ntext").kept).toBe(false);
    expect(lineAt(index, 8)).toBe("first 1");
    lineIndexOf(second);
    expect(() => lineAt(index, 8)).toThrow(/after the next long text was indexed/);
    expect(() => linesMatching(index, /first/)).toThrow(/after the next long text was indexed/);
    // Asked for again, the first text is indexed again.
    expect(lineAt(lineIndexOf(first), 8)).toBe("first 1");
  });

  it("reads the lines split on newlines would give, and tells equal lines by id", () => {
    fc.assert(
      fc.property(texts, (text) => {
        expectReads(lineIndexOf(text), text);
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
    // Most lines a repeat of the one before: every other line is told apart in one table.
    const runs = [one, other, one, other].flatMap((line) => Array(16).fill(line));
    const repeated = lineIndexOf(runs.join("\n"));
    expect(Array.from(repeated.ids)).toEqual(runs.map((line) => (line === one ? 0 : 1)));
    expect(repeated.distinct).toBe(2);
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
