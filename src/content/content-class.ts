/**
 * What a tool output is, decided once per output when the transcript is read (see classify.ts)
 * so that every component treats it the same way:
 * - `file`: the content of a file (a Read-style tool; `cat`, `head`, `tail`, `sed -n` of a file);
 * - `diff`: a diff or patch (`git diff`, `git show`, `diff -u`, or unified diff headers and hunks);
 * - `search`: search results and listings (`grep`, `rg`, `find`, `ls`, Glob/Grep tools, or
 *   `path:line:` matches);
 * - `json`: exactly one JSON document (an API response, `kubectl … -o json`);
 * - `yaml`: a YAML document or stream (`kubectl … -o yaml`, `helm get values`, compose files);
 * - `table`: CSV/TSV, or an aligned table with a header row (`docker ps`, `kubectl get`, psql);
 * - `log`: what a command printed while it ran (builds, tests, installs, scripts);
 * - `text`: anything else.
 *
 * All but the last two are fact classes: the agent asked for exactly those lines and acts on
 * them, so they are never thinned line by line (SPEC §5 "Fidelity"). File reads, diffs and search
 * results may be repacked losslessly, masked as a whole, or collapsed to a head and a tail with a
 * note saying how much was left out. Structured documents (json, yaml, table) are made of
 * records: they may be repacked losslessly, masked as a whole, or shortened by whole records with
 * a count, keeping every record that carries an error or a status that is not normal
 * (content/records.ts) — never a record cut in the middle, never valid JSON made invalid.
 */
export type ContentClass = "file" | "diff" | "search" | "json" | "yaml" | "table" | "log" | "text";

export const STRUCTURED_CLASSES: ReadonlySet<ContentClass> = new Set(["json", "yaml", "table"]);

export const FACT_CLASSES: ReadonlySet<ContentClass> = new Set([
  "file",
  "diff",
  "search",
  ...STRUCTURED_CLASSES,
]);

/** True for the classes whose lines are facts the agent asked for. */
export function isFactClass(contentClass: ContentClass): boolean {
  return FACT_CLASSES.has(contentClass);
}

/** True for structured documents: facts made of records (JSON items, YAML entries, rows). */
export function isStructuredClass(contentClass: ContentClass): boolean {
  return STRUCTURED_CLASSES.has(contentClass);
}
