import type { ContentClass } from "../../content/content-class.js";
import { diffNote, isDiffLine } from "./diff.js";
import { isErrorLine } from "./filter.js";
import { isResultLine, searchNote } from "./search.js";

/**
 * Search results and diffs are facts the agent asked for: `cmdfilter` never thins them line by
 * line. Up to `FACT_MAX_LINES` lines they come back whole (a single-file grep with 91 matches,
 * `grep … | head -40`); over it, the first `FACT_HEAD_LINES` and the last `FACT_TAIL_LINES`
 * lines stay and one note in between says what was left out: `… 71 more matches`,
 * `… 40 more matches (95 lines)`, `… 312 more entries`, `… 81 more diff lines (2 more files)`.
 * A final newline is not counted as a line and is kept. When a line between the two is an
 * error the command printed (not a match or a diff line, e.g. `grep: x: Permission denied`),
 * nothing is collapsed: an error is never hidden.
 */
export const FACT_MAX_LINES = 200;
export const FACT_HEAD_LINES = 100;
export const FACT_TAIL_LINES = 20;

/** The collapsed lines of a search or diff output, or undefined when it stays whole. */
export function collapseFacts(
  lines: readonly string[],
  contentClass: ContentClass,
  listing: boolean,
): string[] | undefined {
  const finalNewline = lines.length > 1 && lines[lines.length - 1] === "";
  const body = finalNewline ? lines.slice(0, -1) : lines;
  if (body.length <= FACT_MAX_LINES) return undefined;
  const omitted = body.slice(FACT_HEAD_LINES, body.length - FACT_TAIL_LINES);
  const belongs =
    contentClass === "diff" ? isDiffLine : (line: string) => isResultLine(line, listing);
  if (omitted.some((line) => isErrorLine(line) && !belongs(line))) return undefined;
  const note = contentClass === "diff" ? diffNote(omitted) : searchNote(omitted, listing);
  return [
    ...body.slice(0, FACT_HEAD_LINES),
    note,
    ...body.slice(body.length - FACT_TAIL_LINES),
    ...(finalNewline ? [""] : []),
  ];
}
