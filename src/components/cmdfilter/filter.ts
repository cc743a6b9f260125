import type { OutputLines } from "./output-lines.js";

/**
 * The contract of one command-family filter, and the rules every filter obeys: a line with an
 * error word is never dropped, whatever the filter planned; every run of dropped lines is noted
 * where it was, saying what and how much (`… (12 passed tests)`); and the result always keeps
 * at least one line of the output itself (never empty, never only notes).
 */

/** A command's words after wrappers (`sudo`, `env X=1`, `timeout 60`, `npx`, `python -m`) are gone. */
export type Argv = readonly string[];

/** What a filter wants done to the lines of one output. */
export interface LinePlan {
  /**
   * By line index, what each line to drop is, as a singular noun for its note (`passed test`,
   * `"Requirement already satisfied" line`); a hole or undefined keeps the line. An array, not a
   * map: a test log has tens of thousands of lines to drop.
   */
  readonly drop: ReadonlyArray<string | undefined>;
  /**
   * Notes written after line `index` (whether that line is kept or dropped), e.g.
   * `… (4 more commits)`; a note stands for the run of dropped lines it closes.
   */
  readonly notes: ReadonlyMap<number, string>;
}

export interface CommandFilter {
  readonly name: string;
  /** True when this filter understands the output of `argv`. */
  matches(argv: Argv): boolean;
  plan(lines: OutputLines, argv: Argv): LinePlan;
}

// error|fail|exception|panic|fatal|traceback|denied|not found, the words that share a start
// written once: V8 tries a line's positions against fewer alternatives (a log: 10 to 25% faster).
const ERROR_LINE = /e(?:rror|xception)|fa(?:il|tal)|panic|traceback|denied|not found/i;
/** The same words, found in a run of lines at once (none of them holds a line end). */
const ERROR_WORD = new RegExp(ERROR_LINE.source, "gi");

/** True for a line no filter may hide. */
export function isErrorLine(line: string): boolean {
  return ERROR_LINE.test(line);
}

/** `12 passed tests`, `1 passed test`. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/** The note for a run of dropped lines: how many of each kind, in order of first appearance. */
export function runNote(kinds: ReadonlyMap<string, number>): string {
  return `\u2026 (${Array.from(kinds, ([noun, count]) => counted(count, noun)).join(", ")})`;
}

/**
 * The lines left by `plan`, with a note in place of every run of dropped lines (the filter's own
 * note where it wrote one, else one that counts the run's kinds); error lines are always kept. A
 * run whose note would be longer than the run is kept as it is. When nothing of the output
 * itself would be left, its first and last non-blank lines are kept (what ran, how it ended).
 * Undefined when nothing is dropped.
 */
export function applyPlan(lines: OutputLines, plan: LinePlan): string[] | undefined {
  const drop: Array<string | undefined> = new Array(lines.count);
  let dropped = 0;
  for (let index = 0; index < lines.count; index++) {
    const kind = plan.drop[index];
    if (kind === undefined) continue;
    drop[index] = kind;
    dropped++;
  }
  dropped -= keepErrorLines(lines, drop);
  if (dropped === 0 && plan.notes.size === 0) return undefined;
  keepEnds(lines, drop);
  const kept: string[] = [];
  let run: { from: number; kinds: Map<string, number>; chars: number } | undefined;
  let reduced = false;
  const close = (to: number, note?: string) => {
    if (!run) return;
    const generated = note ?? runNote(run.kinds);
    if (note !== undefined || generated.length + 1 < run.chars) {
      kept.push(generated);
      reduced = true;
    } else {
      for (let index = run.from; index < to; index++) kept.push(lines.at(index));
    }
    run = undefined;
  };
  const notes = plan.notes.size > 0 ? plan.notes : undefined;
  for (let index = 0; index < lines.count; index++) {
    const kind = drop[index];
    if (kind === undefined) {
      close(index);
      kept.push(lines.at(index));
    } else {
      run ??= { from: index, kinds: new Map(), chars: 0 };
      run.kinds.set(kind, (run.kinds.get(kind) ?? 0) + 1);
      run.chars += lines.end(index) - lines.start(index) + 1;
    }
    const note = notes?.get(index);
    if (note === undefined) continue;
    if (run) close(index + 1, note);
    else kept.push(note);
  }
  close(lines.count);
  return reduced ? kept : undefined;
}

/**
 * Keeps each line `drop` names a kind for that is an error line (isErrorLine); returns how
 * many. Each run of such lines is searched at once, as one stretch of the text: a search a line
 * cost a fifth more on a test log, most of whose lines are passing tests to drop.
 */
function keepErrorLines(lines: OutputLines, drop: Array<string | undefined>): number {
  let kept = 0;
  for (let first = 0; first < lines.count; first++) {
    if (drop[first] === undefined) continue;
    let last = first;
    while (last + 1 < lines.count && drop[last + 1] !== undefined) last++;
    const from = lines.start(first);
    const stretch = lines.text.slice(from, lines.end(last));
    ERROR_WORD.lastIndex = 0;
    for (let line = first; ERROR_WORD.test(stretch); ) {
      const at = from + ERROR_WORD.lastIndex - 1;
      while (lines.end(line) < at) line++;
      drop[line] = undefined;
      kept++;
      // The rest of the line need not be read.
      ERROR_WORD.lastIndex = lines.end(line) - from;
    }
    first = last;
  }
  return kept;
}

/** A line with a character other than white space, read from `start(index)` (sticky). */
const VISIBLE_LINE = /[^\S\n]*\S/y;

/** When every non-blank line is planned away, keeps the first and the last one. */
function keepEnds(lines: OutputLines, drop: Array<string | undefined>): void {
  let first = -1;
  let last = -1;
  for (let index = 0; index < lines.count; index++) {
    VISIBLE_LINE.lastIndex = lines.start(index);
    if (!VISIBLE_LINE.test(lines.text)) continue;
    if (drop[index] === undefined) return;
    if (first < 0) first = index;
    last = index;
  }
  if (first < 0) return;
  drop[first] = undefined;
  drop[last] = undefined;
}

/** A plan that drops every line `kindOf` names a kind for, with no notes of its own. */
export function dropWhere(
  lines: OutputLines,
  kindOf: (line: string, index: number) => string | undefined,
): LinePlan {
  const drop: Array<string | undefined> = new Array(lines.count);
  for (let index = 0; index < lines.count; index++) {
    const kind = kindOf(lines.at(index), index);
    if (kind !== undefined) drop[index] = kind;
  }
  return { drop, notes: new Map() };
}
