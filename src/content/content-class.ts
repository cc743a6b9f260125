/**
 * What a tool output is, decided once per output when the transcript is read (see classify.ts)
 * so that every component treats it the same way:
 * - `file`: the content of a file (a Read-style tool; `cat`, `head`, `tail`, `sed -n` of a file);
 * - `diff`: a diff or patch (`git diff`, `git show`, `diff -u`, or unified diff headers and hunks);
 * - `search`: search results and listings (`grep`, `rg`, `find`, `ls`, Glob/Grep tools, or
 *   `path:line:` matches);
 * - `log`: what a command printed while it ran (builds, tests, installs, scripts);
 * - `json`: exactly one JSON document;
 * - `text`: anything else.
 *
 * The first three are fact classes: the agent asked for exactly those lines and acts on them, so
 * they are never thinned line by line — only repacked losslessly, masked as a whole, or collapsed
 * to a head and a tail with a note saying how much was left out (SPEC §5 "Fidelity").
 */
export type ContentClass = "file" | "diff" | "search" | "log" | "json" | "text";

export const FACT_CLASSES: ReadonlySet<ContentClass> = new Set(["file", "diff", "search"]);

/** True for the classes whose lines are facts the agent asked for. */
export function isFactClass(contentClass: ContentClass): boolean {
  return FACT_CLASSES.has(contentClass);
}
