/**
 * The contract of one command-family filter, and the rule every filter obeys: a line with an
 * error word is never dropped, whatever the filter planned.
 */

/** A command's words after wrappers (`sudo`, `env X=1`, `timeout 60`, `npx`, `python -m`) are gone. */
export type Argv = readonly string[];

/** What a filter wants done to the lines of one output. */
export interface LinePlan {
  /** Indices of lines to drop. */
  readonly drop: ReadonlySet<number>;
  /** Notes written after line `index` (whether that line is kept or dropped), e.g. `… (4 more)`. */
  readonly notes: ReadonlyMap<number, string>;
}

export interface CommandFilter {
  readonly name: string;
  /** True when this filter understands the output of `argv`. */
  matches(argv: Argv): boolean;
  plan(lines: readonly string[], argv: Argv): LinePlan;
}

const ERROR_LINE = /error|fail|exception|panic|fatal|traceback|denied|not found/i;

/** True for a line no filter may hide. */
export function isErrorLine(line: string): boolean {
  return ERROR_LINE.test(line);
}

/** The lines left by `plan`, error lines always kept; undefined when nothing is dropped. */
export function applyPlan(lines: readonly string[], plan: LinePlan): string[] | undefined {
  const kept: string[] = [];
  let dropped = 0;
  for (const [index, line] of lines.entries()) {
    if (plan.drop.has(index) && !isErrorLine(line)) dropped++;
    else kept.push(line);
    const note = plan.notes.get(index);
    if (note !== undefined) kept.push(note);
  }
  return dropped === 0 ? undefined : kept;
}

/** A plan that drops every line `dropLine` selects, with no notes. */
export function dropWhere(
  lines: readonly string[],
  dropLine: (line: string, index: number) => boolean,
): LinePlan {
  const drop = new Set<number>();
  for (const [index, line] of lines.entries()) if (dropLine(line, index)) drop.add(index);
  return { drop, notes: new Map() };
}
