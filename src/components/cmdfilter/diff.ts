import { counted } from "./filter.js";

/**
 * Diffs and patches (`git diff`, `git show`, `git log -p`, `diff -u`): what a collapse of one
 * leaves out, counted in diff lines and the files whose headers went with them.
 */

const SHAPED =
  /^(?:[ +\-@\\]|diff |index |new file mode |deleted file mode |old mode |new mode |similarity index |dissimilarity index |rename (?:from|to) |copy (?:from|to) |Binary files |commit |Author:|AuthorDate:|Commit:|CommitDate:|Date:|Merge:|$)/;

/** True for a line a diff is made of (headers, hunks, the commit records `git show` adds). */
export function isDiffLine(line: string): boolean {
  return SHAPED.test(line);
}

/** The note for omitted diff lines: `… 81 more diff lines`, `… 81 more diff lines (2 files)`. */
export function diffNote(omitted: readonly string[]): string {
  const git = omitted.filter((line) => line.startsWith("diff --git ")).length;
  const files = git > 0 ? git : omitted.filter((line) => line.startsWith("+++ ")).length;
  const more = files === 0 ? "" : ` (${counted(files, "more file")})`;
  return `\u2026 ${counted(omitted.length, "more diff line")}${more}`;
}
