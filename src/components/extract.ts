import { isFactClass } from "../content/content-class.js";
import type { OutputComponent } from "../pipeline/types.js";
import { type LineIndex, lineAt, lineIndexOf, linesMatching } from "../text/line-index.js";
import { WorkingArrays } from "../text/working-arrays.js";
import { withMarkerLine } from "./marked-phrase.js";

/**
 * `extract` (§5, Offload): a deterministic projection of a tool output that keeps what a reader
 * needs and drops what only a terminal needed, saying in place what it dropped.
 *
 * Lines are the text split on `\n`. Outputs of a fact class (file reads, diffs, search results:
 * src/content/) are never projected. Otherwise, in order:
 * 1. Progress lines are dropped: a bar (`[====>   ] 45%`, `45%|████ | 9/20`, `━━━━━ 1.2/3 MB`)
 *    with a percent, rate, count or eta; a transfer line (`Downloading x 12.3 MB/s`); a spinner
 *    frame (a lone `|/-\` or a line opening with a braille spinner); a percentage-only redraw
 *    (`45%`, `(12/100) 45%`).
 * 2. A repeated segment is dropped: the longest run of consecutive lines that already appeared,
 *    verbatim and consecutive, earlier in the output (the line just before included), provided it
 *    holds at least `MIN_REPEAT_CHARS` non-blank characters (so a repeated `}` or `else:` stays
 *    where it is).
 * A line with an error word (error, fail, exception, panic, fatal, traceback, warning) is never
 * dropped, not even as a repeat: a later run's error stays in that run.
 *
 * Every run of dropped lines becomes one note where it was, saying what and how much:
 * `… (12 progress lines)`, `… (repeated 8 lines)`, `… (3 progress lines, repeated 2 lines)`. A
 * run whose note would be longer than the lines it stands for is kept as it is. When nothing
 * but blank lines would be left, the first and last non-blank lines stay: the result is never
 * made of notes alone.
 *
 * Result: the kept lines and notes joined by `\n`, then `\n` + T on its own last line (T alone
 * when the text already ends with `\n`); in off mode nothing is appended. Undefined when nothing
 * is dropped (always for a text of one line) or the output is under `min_tokens`.
 */

const ERROR_WORD = /error|fail|exception|panic|fatal|traceback|warning/i;
/** Fewest non-blank characters a repeated segment needs before a later copy is dropped. */
export const MIN_REPEAT_CHARS = 24;
/** How many earlier occurrences of a line are tried as the start of a repeated segment. */
const MAX_CANDIDATES = 32;
/**
 * Line comparisons the search for repeated segments may make, per line of the output. A log reads
 * a few a line (one line repeated a hundred thousand times: about sixteen); an output made so
 * that each line is compared again with the rest of it (a block of blank lines repeated, never
 * long enough to drop) would take time quadratic in its lines. Past the budget the rest of the
 * output is read for progress lines only, its repeats kept.
 */
const COMPARISONS_PER_LINE = 256;

// Patterns stay linear on a megabyte-long line: no unbounded scan inside a repeated start.
const BRACKET_BAR = /\[(?=[=#>.\- ]{4,}\])[.\- ]*[=#>]/;
const BLOCK_BAR = /[█▉▊▋▌▍▎▏▓▒░━╸╺■]{3,}/;
const PERCENT = /\d(?:\.\d+)?\s?%/;
const RATE = /\d(?:\.\d+)?\s?(?:[kKMGT]i?)?(?:B|b|it)\/s\b|\d\s?s\/it\b/;
// An eta (`01:23<`) is read from the start of its digits: read from every digit of a run, it
// would read the rest of the run again from each.
const COUNT_OR_ETA =
  /\b\d+(?:\.\d+)?\s?(?:[kKMGT]i?B)?\s?\/\s?\d+(?:\.\d+)?|\beta\b|(?<!\d)\d+:\d\d(?::\d\d)?</i;
const TRANSFER =
  /^\s*(?:Downloading|Uploading|Receiving|Resolving|Fetching|Pulling|Extracting|Unpacking)\b/i;
// Read on the line without its trailing white space: a final `\s*` after `.*` would share a run
// of spaces with it, trying every split of the run.
const SPINNER = /^\s*(?:[|/\\-]|[\u2800-\u28ff◐◓◑◒◴◷◶◵]\s?.*)$/u;
const PERCENT_ONLY = /^[\s\d.,:/()[\]|-]*\d(?:\.\d+)?\s?%[\s\d.,:/()[\]%|-]*$/;

/** True for a line that only a terminal redraw needed. */
export function isProgressLine(line: string): boolean {
  return !ERROR_WORD.test(line) && drawnForTerminal(line);
}

/** isProgressLine of a line with no error word (found for every line at once: linesMatching). */
function drawnForTerminal(line: string): boolean {
  if (line.trim() === "") return false;
  if (SPINNER.test(line.trimEnd()) || PERCENT_ONLY.test(line)) return true;
  const bar = BRACKET_BAR.test(line) || BLOCK_BAR.test(line);
  if (bar && (PERCENT.test(line) || RATE.test(line) || COUNT_OR_ETA.test(line))) return true;
  return RATE.test(line) && (TRANSFER.test(line) || PERCENT.test(line) || bar);
}

/**
 * Every character a progress line holds one of: a spinner frame (`|/-\\`, a braille or circle
 * frame), a percent, a bar's `[` or block, a rate's `/`. A line without any is never tested.
 */
export const PROGRESS_CHAR = /[%[/|\\\-\u2800-\u28ff◐◓◑◒◴◷◶◵█▉▊▋▌▍▎▏▓▒░━╸╺■]/;

const KEPT = 0;
const PROGRESS = 1;
const REPEATED = 2;

/** What a search works in, a line each (see WorkingArrays): read only within one call. */
const working = new WorkingArrays();
const BEFORE = 0;
const CANDIDATES = 1;
const IDS = 2;
const LATEST = 3;
const PREVIOUS = 4;
const FATE = 0;
const ERRORS = 1;

/**
 * The non-blank characters of the lines before each of `count` candidates (`lineOf`: the line
 * of each), each line counted up to `MIN_REPEAT_CHARS` (no segment needs more): whether
 * candidates `from`..`to` are long enough to drop is `before[to] - before[from] >= MIN_REPEAT_CHARS`, one subtraction however many blank
 * lines they hold (read line by line, a run of blank lines was read again from each of its lines).
 */
function nonBlankBefore(
  index: LineIndex,
  count: number,
  lineOf: (position: number) => number,
): Int32Array {
  const { nonBlank } = index;
  const before = working.ints(BEFORE, count + 1);
  let sum = 0;
  for (let position = 0; position < count; position++) {
    sum += Math.min(nonBlank[lineOf(position)] as number, MIN_REPEAT_CHARS);
    before[position + 1] = sum;
  }
  return before;
}

/**
 * Length of the longest run starting at `at` that appeared consecutively before `at`; the run
 * never takes in an error line (`errors`: whether each line has an error word; `at`'s has
 * none). Lines are compared by `ids` (equal lines, equal ids): a log of one line repeated a
 * hundred thousand times compares each line with its earlier copies many times over. `same` is
 * a stretch around `at` of lines all equal to it: a comparison that stays within it matches
 * (equal lines, and none with an error word), so it is counted, not made.
 */
function repeatedRunLength(
  ids: Int32Array,
  errors: Uint8Array,
  at: number,
  earlier: Occurrences,
  budget: { comparisons: number },
  same: { readonly from: number; readonly to: number },
): number {
  let best = 0;
  let start = earlier.latest[ids[at] as number] as number;
  for (let tried = 0; start >= 0 && tried < MAX_CANDIDATES; tried++) {
    // Every run is at least as long as the first comparison that ends it.
    const limit = Math.min(at - start, ids.length - at, budget.comparisons);
    let length = 0;
    if (start >= same.from && at + limit <= same.to) length = limit;
    while (length < limit && ids[start + length] === ids[at + length] && !errors[at + length]) {
      length++;
    }
    budget.comparisons -= length + 1;
    if (budget.comparisons <= 0) return 0;
    if (length > best) best = length;
    start = earlier.previous[start] as number;
  }
  return best;
}

/**
 * The comparisons one search makes deep in a stretch of equal lines: MAX_CANDIDATES earlier
 * copies, the k-th one back compared k times and once more to end (1 + 2 + … + 32, and 32).
 */
const BLOCK_COMPARISONS = (MAX_CANDIDATES * (MAX_CANDIDATES + 3)) / 2;

/**
 * How many blocks of MAX_CANDIDATES lines from `at` on the search for repeated runs drops one
 * after another, when `at` lies deep in a stretch of equal lines (`same`: one line repeated
 * thousands of times, `yes`); 0 when it does not. There every search finds the MAX_CANDIDATES
 * lines just before it as the earlier copies (each line was remembered in turn), the k-th of
 * them a run of k lines, so it drops a run of MAX_CANDIDATES lines (long enough when one line
 * is: the lines are equal) for BLOCK_COMPARISONS comparisons; the blocks counted are those that
 * stay within the stretch and leave the budget above 0, as each search would.
 */
function repeatedBlocks(
  at: number,
  same: { readonly from: number; readonly to: number },
  budget: { readonly comparisons: number },
  nonBlank: Int32Array,
): number {
  if (at - same.from < MAX_CANDIDATES || same.to - at < MAX_CANDIDATES) return 0;
  const chars = (nonBlank[at + MAX_CANDIDATES] as number) - (nonBlank[at] as number);
  if (chars < MIN_REPEAT_CHARS) return 0;
  return Math.max(
    0,
    Math.min(
      Math.floor((same.to - at) / MAX_CANDIDATES),
      Math.floor((budget.comparisons - 1) / BLOCK_COMPARISONS),
    ),
  );
}

/**
 * Where each line was met so far, latest first, without an array a line (a log of a million
 * distinct short lines would make a million): the latest position of each line's id, and for
 * each position the one before it with the same id (-1: none).
 */
interface Occurrences {
  readonly latest: Int32Array;
  readonly previous: Int32Array;
}

/**
 * What happens to each line (steps 1 and 2 above): KEPT, PROGRESS or REPEATED. Read from the
 * text's line index: a line is made a string only to be tested as a progress line.
 */
function fates(index: LineIndex): Uint8Array {
  const fate = working.bytes(FATE, index.count);
  const errorLines = linesMatching(index, ERROR_WORD);
  const suspects = linesMatching(index, PROGRESS_CHAR);
  let progress = 0;
  for (let line = 0; line < index.count; line++) {
    if (suspects[line] && !errorLines[line] && drawnForTerminal(lineAt(index, line))) {
      fate[line] = PROGRESS;
      progress++;
    }
  }
  // The lines still in play (not progress: undefined when they all are), their ids and whether
  // each has an error word.
  let candidates: Int32Array | undefined;
  let ids = index.ids;
  let errors = errorLines;
  if (progress > 0) {
    candidates = working.ints(CANDIDATES, index.count - progress);
    ids = working.ints(IDS, candidates.length);
    errors = working.bytes(ERRORS, candidates.length);
    let position = 0;
    for (let line = 0; line < index.count; line++) {
      if (fate[line] === PROGRESS) continue;
      candidates[position] = line;
      ids[position] = index.ids[line] as number;
      errors[position++] = errorLines[line] as number;
    }
  }
  const count = ids.length;
  const lineOf = (position: number) =>
    candidates === undefined ? position : (candidates[position] as number);
  const seen: Occurrences = {
    latest: working.ints(LATEST, index.distinct, -1),
    previous: working.ints(PREVIOUS, count),
  };
  const remember = (position: number) => {
    const id = ids[position] as number;
    seen.previous[position] = seen.latest[id] as number;
    seen.latest[id] = position;
  };
  const nonBlank = nonBlankBefore(index, count, lineOf);
  const budget = { comparisons: COMPARISONS_PER_LINE * count };
  // Lines equal to the one at `position`, around it (from where a search for them started).
  const same = { from: 0, to: 0 };
  let position = 0;
  while (position < count) {
    if (position >= same.to) {
      same.from = position;
      same.to = position + 1;
      while (same.to < count && ids[same.to] === ids[position]) same.to++;
    }
    const blocks = errors[position] ? 0 : repeatedBlocks(position, same, budget, nonBlank);
    if (blocks > 0) {
      // What the search below finds there, block after block, taken at once (repeatedBlocks).
      const end = position + blocks * MAX_CANDIDATES;
      for (; position < end; position++) {
        fate[lineOf(position)] = REPEATED;
        seen.previous[position] = position - 1;
      }
      seen.latest[ids[end - 1] as number] = end - 1;
      budget.comparisons -= blocks * BLOCK_COMPARISONS;
      continue;
    }
    const run =
      errors[position] || budget.comparisons <= 0
        ? 0
        : repeatedRunLength(ids, errors, position, seen, budget, same);
    if (
      run > 0 &&
      (nonBlank[position + run] as number) - (nonBlank[position] as number) >= MIN_REPEAT_CHARS
    ) {
      for (const end = position + run; position < end; position++) {
        fate[lineOf(position)] = REPEATED;
        remember(position);
      }
      continue;
    }
    remember(position++);
  }
  keepEnds(index, fate);
  return fate;
}

/** When no non-blank line is kept, keeps the first and the last one. */
function keepEnds(index: LineIndex, fate: Uint8Array): void {
  let first = -1;
  let last = -1;
  for (let line = 0; line < index.count; line++) {
    if (index.nonBlank[line] === 0) continue;
    if (fate[line] === KEPT) return;
    if (first === -1) first = line;
    last = line;
  }
  if (first === -1) return;
  fate[first] = KEPT;
  fate[last] = KEPT;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The note standing for a run of dropped lines. */
export function omissionNote(progress: number, repeated: number): string {
  const parts: string[] = [];
  if (progress > 0) parts.push(plural(progress, "progress line"));
  if (repeated > 0) parts.push(`repeated ${plural(repeated, "line")}`);
  return `\u2026 (${parts.join(", ")})`;
}

/**
 * The projected lines of the indexed text: kept lines, and one note per run of dropped lines;
 * undefined when no run is dropped (a note is always shorter than the run it stands for, so the
 * projection differs from the text exactly when one is). The runs are read before any line is
 * made a string: most outputs drop nothing.
 */
function projectIndex(index: LineIndex): string[] | undefined {
  const fate = fates(index);
  const runs: Array<{ from: number; to: number; note: string }> = [];
  for (let line = 0; line < index.count; ) {
    if (fate[line] === KEPT) {
      line++;
      continue;
    }
    const from = line;
    let progress = 0;
    let repeated = 0;
    for (; line < index.count && fate[line] !== KEPT; line++) {
      if (fate[line] === PROGRESS) progress++;
      else repeated++;
    }
    // The run's characters, each line's `\n` counted.
    const chars = (index.starts[line] as number) - (index.starts[from] as number);
    const note = omissionNote(progress, repeated);
    if (note.length + 1 < chars) runs.push({ from, to: line, note });
  }
  if (runs.length === 0) return undefined;
  const out: string[] = [];
  let line = 0;
  for (const { from, to, note } of runs) {
    while (line < from) out.push(lineAt(index, line++));
    out.push(note);
    line = to;
  }
  while (line < index.count) out.push(lineAt(index, line++));
  return out;
}

/** The projected lines of `lines`: kept lines, and one note per run of dropped lines. */
export function project(lines: readonly string[]): string[] {
  return projectIndex(lineIndexOf(lines.join("\n"))) ?? [...lines];
}

export const extract: OutputComponent<"extract"> = {
  name: "extract",
  kind: "offload",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: true,
  reduce(output, options, context) {
    if (isFactClass(output.contentClass)) return undefined;
    // One line is never dropped (kept as the last non-blank line were it progress): a file as a
    // line of base64 is not read for progress or repeats.
    if (output.text.indexOf("\n") === -1) return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    const projected = projectIndex(lineIndexOf(output.text));
    if (projected === undefined) return undefined;
    return withMarkerLine(projected.join("\n"), context.marker(output.text));
  },
};
