import { type Argv, type CommandFilter, dropWhere, isErrorLine, type LinePlan } from "./filter.js";

/**
 * Git: `git log`, `git diff` / `git show`, `git status`.
 *
 * - log, full format (`commit <hash>` records): keeps each `commit …` line and the subject (the
 *   first message line); drops `Author:`, `Date:`, `Merge:` and the other header lines, blank
 *   lines and the message body. Patch and stat lines (`-p`, `--stat`) stay.
 *   Any format: commits past the first `MAX_COMMITS` are dropped, with a last line
 *   `… (N more commits)`.
 * - diff / show: drops `index <a>..<b>` lines; inside a hunk, a run of more than
 *   `MAX_CONTEXT_RUN` unchanged lines keeps its first and last `KEEP_CONTEXT` lines and says
 *   `… (N unchanged lines)` in between. File headers, hunk headers, `+` and `-` lines all stay.
 * - status: drops the `(use "git …")` hint lines.
 */

export const MAX_COMMITS = 30;
export const MAX_CONTEXT_RUN = 8;
export const KEEP_CONTEXT = 3;

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

function planLog(lines: readonly string[]): LinePlan {
  const drop = new Set<number>();
  const notes = new Map<number, string>();
  const full = lines.some((line) => COMMIT.test(line));
  let commits = 0;
  let subjectSeen = true;
  for (const [index, line] of lines.entries()) {
    const starts = full ? COMMIT.test(line) : ONELINE.test(line);
    if (starts) {
      commits++;
      subjectSeen = false;
    }
    if (commits > MAX_COMMITS) {
      drop.add(index);
      continue;
    }
    if (!full || starts) continue;
    if (HEADER.test(line) || line.trim() === "") drop.add(index);
    else if (MESSAGE.test(line)) {
      if (subjectSeen) drop.add(index);
      subjectSeen = true;
    }
  }
  const more = commits - MAX_COMMITS;
  if (more > 0) notes.set(lines.length - 1, `… (${more} more commits)`);
  return { drop, notes };
}

function planDiff(lines: readonly string[]): LinePlan {
  const drop = new Set<number>();
  const notes = new Map<number, string>();
  let inHunk = false;
  let runStart = -1;
  const closeRun = (end: number) => {
    const length = end - runStart;
    if (runStart >= 0 && length > MAX_CONTEXT_RUN) {
      let hidden = 0;
      for (let at = runStart + KEEP_CONTEXT; at < end - KEEP_CONTEXT; at++) {
        if (isErrorLine(lines[at] as string)) continue;
        drop.add(at);
        hidden++;
      }
      if (hidden > 0) notes.set(runStart + KEEP_CONTEXT - 1, `… (${hidden} unchanged lines)`);
    }
    runStart = -1;
  };
  for (const [index, line] of lines.entries()) {
    if (line.startsWith("@@")) inHunk = true;
    else if (line.startsWith("diff --git ") || line.startsWith("commit ")) inHunk = false;
    const context = inHunk && line.startsWith(" ");
    if (context && runStart < 0) runStart = index;
    if (!context) closeRun(index);
    if (!inHunk && /^index [0-9a-f]+\.\.[0-9a-f]+/.test(line)) drop.add(index);
  }
  closeRun(lines.length);
  return { drop, notes };
}

const HINT =
  /^\s*\((?:use "git |use 'git |commit or discard |fix conflicts and run |all conflicts fixed)/;

export const gitLog: CommandFilter = {
  name: "git-log",
  matches: (argv) => gitSubcommand(argv) === "log",
  plan: planLog,
};

export const gitDiff: CommandFilter = {
  name: "git-diff",
  matches: (argv) => {
    const subcommand = gitSubcommand(argv);
    return subcommand === "diff" || subcommand === "show";
  },
  plan: planDiff,
};

export const gitStatus: CommandFilter = {
  name: "git-status",
  matches: (argv) => gitSubcommand(argv) === "status",
  plan: (lines) => dropWhere(lines, (line) => HINT.test(line)),
};
