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
  plan(lines: readonly string[], argv: Argv): LinePlan;
}

// error|fail|exception|panic|fatal|traceback|denied|not found, the words that share a start
// written once: V8 tries a line's positions against fewer alternatives (a log: 10 to 25% faster).
const ERROR_LINE = /e(?:rror|xception)|fa(?:il|tal)|panic|traceback|denied|not found/i;

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
export function applyPlan(lines: readonly string[], plan: LinePlan): string[] | undefined {
  const drop: Array<string | undefined> = new Array(lines.length);
  let dropped = 0;
  for (let index = 0; index < lines.length; index++) {
    const kind = plan.drop[index];
    if (kind === undefined || isErrorLine(lines[index] as string)) continue;
    drop[index] = kind;
    dropped++;
  }
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
      for (let index = run.from; index < to; index++) kept.push(lines[index] as string);
    }
    run = undefined;
  };
  const notes = plan.notes.size > 0 ? plan.notes : undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const kind = drop[index];
    if (kind === undefined) {
      close(index);
      kept.push(line);
    } else {
      run ??= { from: index, kinds: new Map(), chars: 0 };
      run.kinds.set(kind, (run.kinds.get(kind) ?? 0) + 1);
      run.chars += line.length + 1;
    }
    const note = notes?.get(index);
    if (note === undefined) continue;
    if (run) close(index + 1, note);
    else kept.push(note);
  }
  close(lines.length);
  return reduced ? kept : undefined;
}

const VISIBLE = /\S/;

/** When every non-blank line is planned away, keeps the first and the last one. */
function keepEnds(lines: readonly string[], drop: Array<string | undefined>): void {
  let first = -1;
  let last = -1;
  for (let index = 0; index < lines.length; index++) {
    if (!VISIBLE.test(lines[index] as string)) continue;
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
  lines: readonly string[],
  kindOf: (line: string, index: number) => string | undefined,
): LinePlan {
  const drop: Array<string | undefined> = new Array(lines.length);
  for (let index = 0; index < lines.length; index++) {
    const kind = kindOf(lines[index] as string, index);
    if (kind !== undefined) drop[index] = kind;
  }
  return { drop, notes: new Map() };
}
