import { type Argv, type CommandFilter, dropWhere, type LinePlan } from "./filter.js";
import type { OutputLines } from "./output-lines.js";

/**
 * Git: `git log`, `git status`. (`git diff` and `git show` print diffs, a fact class: they are
 * never thinned, only collapsed over a budget, see fact-collapse.ts.)
 *
 * - log, full format (`commit <hash>` records): keeps each `commit …` line, the subject (the
 *   first message line) and blank lines; drops `Author:`, `Date:`, `Merge:` and the other header
 *   lines and the message body, noted as `… (2 header lines)` and `… (3 message lines)`. Stat
 *   lines (`--stat`) stay. Any format: commits past the first `MAX_COMMITS` are dropped, with a
 *   last line `… (N more commits)`.
 * - status: drops the `(use "git …")` hint lines, noted as `… (2 git hints)`.
 */

export const MAX_COMMITS = 30;

const GLOBAL_OPTIONS_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace"]);

/** The git subcommand of `argv` (`git -C dir --no-pager log` → `log`). */
export function gitSubcommand(argv: Argv): string | undefined {
  if (argv[0] !== "git") return undefined;
  for (let at = 1; at < argv.length; at++) {
    const word = argv[at] as string;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(word)) at++;
    else if (!word.startsWith("-")) return word;
  }
  return undefined;
}

const COMMIT = /^(?:[*|\\/ ]*)commit [0-9a-f]{7,64}\b/;
const ONELINE = /^(?:[*|\\/ ]*)[0-9a-f]{7,64} \S/;
const HEADER =
  /^(?:[|\\/ ]*)(?:Author|AuthorDate|Commit|CommitDate|Date|Merge|Reflog|Signed-off-by):/;
const MESSAGE = /^(?:[|\\/ ]*) {4}/;

function planLog(lines: OutputLines): LinePlan {
  const drop: Array<string | undefined> = new Array(lines.count);
  const notes = new Map<number, string>();
  let full = false;
  for (let index = 0; index < lines.count && !full; index++) full = COMMIT.test(lines.at(index));
  let commits = 0;
  let subjectSeen = true;
  for (let index = 0; index < lines.count; index++) {
    const line = lines.at(index);
    const starts = full ? COMMIT.test(line) : ONELINE.test(line);
    if (starts) {
      commits++;
      subjectSeen = false;
    }
    if (commits > MAX_COMMITS) {
      drop[index] = "commit line";
      continue;
    }
    if (!full || starts || line.trim() === "") continue;
    if (HEADER.test(line)) drop[index] = "header line";
    else if (MESSAGE.test(line)) {
      if (subjectSeen) drop[index] = "message line";
      subjectSeen = true;
    }
  }
  const more = commits - MAX_COMMITS;
  if (more > 0) notes.set(lines.count - 1, `\u2026 (${more} more commits)`);
  return { drop, notes };
}

const HINT =
  /^\s*\((?:use "git |use 'git |commit or discard |fix conflicts and run |all conflicts fixed)/;

export const gitLog: CommandFilter = {
  name: "git-log",
  matches: (argv) => gitSubcommand(argv) === "log",
  plan: planLog,
};

export const gitStatus: CommandFilter = {
  name: "git-status",
  matches: (argv) => gitSubcommand(argv) === "status",
  plan: (lines) => dropWhere(lines, (line) => (HINT.test(line) ? "git hint" : undefined)),
};
