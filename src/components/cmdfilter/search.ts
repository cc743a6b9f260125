import { type Argv, counted } from "./filter.js";

/**
 * Search results: `grep` (`egrep`, `fgrep`, `git grep`), `rg`, `ag`, `ack` matches and context
 * lines, and `find`, `fd`, `ls`, `tree` listings — what a collapse of them leaves out, counted
 * the way the agent asked for them.
 *
 * Matches are `path:12:text`, `path:text` and, for a single file, `12:text`; context lines
 * `path-12-text` / `12-text` and `--` separators follow their match. A listing counts entries.
 */

const LISTERS = new Set(["find", "fd", "fdfind", "ls", "tree", "locate"]);

/** True when `argv` lists paths rather than searching text. */
export function isListing(argv: Argv | undefined): boolean {
  return LISTERS.has(argv?.[0] ?? "") || argv?.[1] === "ls-files";
}

/** True for a grep-like match line (not a context line or separator). */
export function isMatchLine(line: string): boolean {
  if (/^\d+:/.test(line)) return true;
  const colon = line.indexOf(":");
  if (colon <= 0 || /^\s/.test(line)) return false;
  return /^\d+:/.test(line.slice(colon + 1)) || /[/.]/.test(line.slice(0, colon));
}

/** True for a line a search prints around its matches: context lines and `--` separators. */
export function isContextLine(line: string): boolean {
  return line === "--" || /^(?:\S*?-)?\d+-/.test(line);
}

/** The note for omitted search lines: `… 71 more matches`, `… 40 more matches (95 lines)`. */
export function searchNote(omitted: readonly string[], listing: boolean): string {
  const filled = omitted.filter((line) => line.trim() !== "");
  if (listing) return `\u2026 ${counted(filled.length, "more entry", "more entries")}`;
  const matches = filled.filter(isMatchLine).length;
  const lines = matches === omitted.length ? "" : ` (${counted(omitted.length, "line")})`;
  return `\u2026 ${counted(matches, "more match", "more matches")}${lines}`;
}

/** True for a line that belongs to the search results (a match, a context line, an entry). */
export function isResultLine(line: string, listing: boolean): boolean {
  if (listing) return line.trim() !== "" && !/^(?:find|ls|fd|tree): /.test(line);
  return isMatchLine(line) || isContextLine(line);
}
