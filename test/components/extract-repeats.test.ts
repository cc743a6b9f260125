import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isProgressLine,
  MIN_REPEAT_CHARS,
  omissionNote,
  project,
} from "../../src/components/extract.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/**
 * The reference: `project` as it reads lines with no budget for its search of repeats — each
 * line's last 32 earlier occurrences tried as the start of a run, every run read to its end, a
 * segment's non-blank characters counted line by line.
 */
function referenceProject(lines: readonly string[]): string[] {
  const error = (line: string) => /error|fail|exception|panic|fatal|traceback|warning/i.test(line);
  const fate: string[] = lines.map((line) => (isProgressLine(line) ? "progress" : "kept"));
  const candidates = lines.flatMap((_, index) => (fate[index] === "kept" ? [index] : []));
  const texts = candidates.map((index) => lines[index] as string);
  const seen = new Map<string, number[]>();
  const remember = (position: number) =>
    seen.set(texts[position] as string, [...(seen.get(texts[position] as string) ?? []), position]);
  let position = 0;
  while (position < texts.length) {
    let run = 0;
    if (!error(texts[position] as string)) {
      for (const start of (seen.get(texts[position] as string) ?? []).slice(-32).reverse()) {
        let length = 0;
        while (
          start + length < position &&
          position + length < texts.length &&
          texts[start + length] === texts[position + length] &&
          !error(texts[position + length] as string)
        ) {
          length++;
        }
        run = Math.max(run, length);
      }
    }
    const segment = texts.slice(position, position + run).join("");
    if (run > 0 && segment.replace(/\s/g, "").length >= MIN_REPEAT_CHARS) {
      for (const end = position + run; position < end; position++) {
        fate[candidates[position] as number] = "repeated";
        remember(position);
      }
      continue;
    }
    remember(position++);
  }
  const visible = lines.flatMap((line, index) => (line.trim() === "" ? [] : [index]));
  if (visible.length > 0 && visible.every((index) => fate[index] !== "kept")) {
    fate[visible[0] as number] = "kept";
    fate[visible.at(-1) as number] = "kept";
  }
  const out: string[] = [];
  let index = 0;
  while (index < lines.length) {
    if (fate[index] === "kept") {
      out.push(lines[index++] as string);
      continue;
    }
    const from = index;
    let progress = 0;
    let repeated = 0;
    let chars = 0;
    for (; index < lines.length && fate[index] !== "kept"; index++) {
      if (fate[index] === "progress") progress++;
      else repeated++;
      chars += (lines[index] as string).length + 1;
    }
    const note = omissionNote(progress, repeated);
    if (note.length + 1 < chars) out.push(note);
    else out.push(...lines.slice(from, index));
  }
  return out;
}

describe("extract's repeated segments", () => {
  it("are those a search without a budget finds, on outputs within it", () => {
    // Few distinct lines, so that runs repeat, and progress lines among them; two of the
    // twelve-letter lines make a segment of exactly MIN_REPEAT_CHARS.
    const line = fc.constantFrom(
      "abcdefghijkl",
      "mnopqrstuvwx",
      "linking target",
      "}",
      "",
      "   \t",
      "\u00a0",
      "error: disk full",
      "[=====>    ] 50%",
      "x",
    );
    // Lines, or short blocks of them met again and again, so that a line has many earlier
    // occurrences and the longest run may start at any of them.
    const piece = fc.oneof(
      line.map((text) => [text]),
      fc.array(line, { minLength: 2, maxLength: 4 }),
    );
    const blocks = fc
      .tuple(
        fc.array(piece, { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(2), { maxLength: 60 }),
      )
      .map(([pieces, picks]) => picks.flatMap((pick) => pieces[pick % pieces.length] ?? []));
    fc.assert(
      fc.property(fc.oneof(fc.array(line, { maxLength: 80 }), blocks), (lines) => {
        expect(project(lines)).toEqual(referenceProject(lines));
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  it("are those a search finds line by line, in stretches of one line repeated", () => {
    // Stretches long enough that whole blocks of MAX_CANDIDATES lines are dropped at once, of
    // lines long enough to drop, short, or with an error word, between other lines; and shorter
    // ones of blank lines, never dropped (a long one spends the search's budget: see below).
    const repeated = fc.oneof(
      fc.tuple(fc.constantFrom("y", "abcdefghijkl", "error: again", "x".repeat(30)), fc.nat(300)),
      fc.tuple(fc.constant("  "), fc.nat(72)),
    );
    const other = fc.array(fc.constantFrom("abcdefghijkl", "mnopqrstuvwx", "y", "done", ""), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(fc.array(fc.tuple(other, repeated), { minLength: 1, maxLength: 3 }), (parts) => {
        // Distinct lines after them: a budget for the blank stretches' comparisons.
        const lines = [
          ...parts.flatMap(([before, [line, times]]) => [
            ...before,
            ...Array<string>(times).fill(line),
          ]),
          ...Array.from({ length: 500 }, (_, index) => `line ${index}`),
        ];
        expect(project(lines)).toEqual(referenceProject(lines));
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("reads a block of blank lines repeated in time linear in its lines", () => {
    // Never long enough to drop, each line's run was read again to the end of the output, and
    // its non-blank characters counted again line by line: time quadratic in the lines.
    const blank = (index: number) =>
      index.toString(2).padStart(16, "0").replaceAll("0", " ").replaceAll("1", "\t");
    const block = Array.from({ length: 150_000 }, (_, index) => blank(index));
    const lines = [...block, ...block];
    expect(project(lines)).toEqual(lines);
  });

  it("still drops a long repeated segment, with a note", () => {
    const segment = Array.from({ length: 400 }, (_, index) => `step ${index} of the build`);
    const lines = [...segment, ...segment, "done"];
    expect(project(lines)).toEqual([...segment, "\u2026 (repeated 400 lines)", "done"]);
  });
});
