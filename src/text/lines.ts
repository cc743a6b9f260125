import { LastRead, LONG_TEXT_CHARS } from "./last-read.js";

/**
 * `text.split("\n")`, by finding each newline and slicing the line before it: on a text of
 * two-byte characters (a test log's `✓`) V8's split takes half as long again (a 1 MB test log of
 * 15 000 lines: 0.65 ms against 0.5 ms); on one-byte text the two are within a few hundredths of
 * a millisecond.
 */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
    lines.push(text.slice(start, end));
    start = end + 1;
  }
  lines.push(text.slice(start));
  return lines;
}

/**
 * The lines of `text` split on `\n` (one more than its newlines), counted no further than
 * `limit` + 1: found by searching for each newline, no line made a string.
 */
export function countLines(text: string, limit = Number.POSITIVE_INFINITY): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1 && lines <= limit; at = text.indexOf("\n", at + 1)) {
    lines++;
  }
  return lines;
}

const lastCount = new LastRead<boolean>();

/**
 * Whether `text` has more than `limit` lines (split on `\n`, as `split` counts them), its newlines
 * counted no further than that: a text of no more than `limit` characters cannot. The last answer
 * for a text that had to be counted is remembered (held weakly), as every component that reads
 * lines asks it of the same output.
 */
export function hasMoreLinesThan(text: string, limit: number): boolean {
  if (text.length < limit) return false;
  return lastCount.read(text, String(limit), () => countLines(text, limit) > limit);
}

/**
 * The lines of a text, a final newline not starting one, as the collapse of a long table or YAML
 * document and the fidelity check of that change both read them, by where each starts rather
 * than as strings: a reader that needs few of them as strings (a collapse that
 * keeps forty lines of a pod list of half a million) makes those alone. Line `i` is
 * `text.slice(starts[i], starts[i + 1] - 1)`; `text` is the text less its final newline, and
 * `starts[count]` is `text.length + 1`. (A reader that compares lines, extract's and linecap's,
 * reads the line index, text/line-index.ts: ids of equal lines as well.)
 *
 * A long text's starts are read into an array kept from one long text to the next: memory a
 * process touches afresh costs a page fault a page (see text/working-arrays.ts), and made anew
 * for each text the starts of a megabyte YAML document's sixty thousand lines cost more than
 * finding them. So they hold until the next long text's starts are read: a reader reads the
 * starts it asked for within one call and never keeps them (the last ones, remembered below,
 * are always those the kept array holds).
 */
export interface LineStarts {
  readonly text: string;
  readonly count: number;
  readonly starts: Int32Array;
}

const lastStarts = new LastRead<LineStarts>(LONG_TEXT_CHARS);

/** The lines of `text` by their starts; the last long text's are remembered (held weakly). */
export function lineStartsOf(text: string): LineStarts {
  return lastStarts.read(text, "", () => startsOf(text));
}

/** Kept starts longer than this many lines are made for their text alone. */
const MAX_KEPT_LINES = 512 * 1024;
/** The array the last long text's starts were read into, read into again for the next one. */
let kept: Int32Array = new Int32Array(0);

function startsOf(text: string): LineStarts {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  if (body.length < LONG_TEXT_CHARS) {
    const count = countLines(body);
    const starts = new Int32Array(count + 1);
    let line = 0;
    for (let at = body.indexOf("\n"); at !== -1; at = body.indexOf("\n", at + 1)) {
      starts[++line] = at + 1;
    }
    starts[count] = body.length + 1;
    return { text: body, count, starts };
  }
  // Counted as they are read: a second search for every newline cost as much as the first.
  let starts = kept;
  if (starts.length > 0) starts[0] = 0;
  let line = 0;
  for (let at = body.indexOf("\n"); at !== -1; at = body.indexOf("\n", at + 1)) {
    if (++line + 1 >= starts.length) {
      starts = grown(starts, line, linesAtRate(line, at + 1, body.length));
    }
    starts[line] = at + 1;
  }
  if (line + 1 >= starts.length) starts = grown(starts, line + 1, line + 1);
  const count = line + 1;
  starts[count] = body.length + 1;
  if (starts.length <= MAX_KEPT_LINES) kept = starts;
  return { text: body, count, starts: starts.subarray(0, count + 1) };
}

/**
 * How many lines a text of `length` characters is expected to have when its first `chars`
 * characters hold `lines` of them: as many at that rate, an eighth more and 64. A long text read
 * at once counts its lines as it goes, in arrays sized so and grown when it has more.
 */
export function linesAtRate(lines: number, chars: number, length: number): number {
  return Math.ceil((lines / Math.max(chars, 1)) * length * 1.125) + 64;
}

/**
 * Room for the lines a text is expected to have (`lines`, and at least twice and 64 more than
 * the `read` so far), the starts read so far kept.
 */
function grown(starts: Int32Array, read: number, lines: number): Int32Array {
  const more = new Int32Array(Math.max(lines, read * 2 + 64));
  more.set(starts.subarray(0, read));
  return more;
}

/** The lines of an array as LineStarts (each line as it is, an empty last one too). */
export function lineStartsOfLines(lines: readonly string[]): LineStarts {
  const starts = new Int32Array(lines.length + 1);
  for (let line = 0; line < lines.length; line++) {
    starts[line + 1] = (starts[line] as number) + (lines[line] as string).length + 1;
  }
  return { text: lines.join("\n"), count: lines.length, starts };
}

/** Line `line` as a string. */
export function lineAtStart(lines: LineStarts, line: number): string {
  return lines.text.slice(lines.starts[line] as number, (lines.starts[line + 1] as number) - 1);
}
