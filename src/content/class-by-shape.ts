import { opensJsonDocument } from "../components/json-document.js";
import { cleanText } from "../text/terminal.js";
import type { ContentClass } from "./content-class.js";
import { mayBeJsonDocument } from "./json-limit.js";
import { outlineJson } from "./json-outline.js";
import { isTableShape, isYamlShape } from "./structured-shape.js";

/**
 * The class a tool output has by its shape, for outputs whose call does not say (an unknown
 * tool, a script, no paired call). Only the start of the text is read (`WINDOW_CHARS`, the first
 * `WINDOW_LINES` lines), so classing a megabyte costs no more than classing a page, and it is
 * read as textclean leaves it (no ANSI colours, no `\r` redraws), so a coloured diff is a diff.
 * - `diff`: a unified diff hunk header (`@@ -1,3 +1,4 @@`) after a file header (`diff --git`,
 *   `--- a` followed by `+++ b`, `Index:`);
 * - `search`: at least `MIN_LINES` non-blank lines, `MIN_SHARE` of them `path:12:` or `path-12-`
 *   matches (the path holding a `/` or a `.`), `--` separators, or slash-separated paths;
 * - `file`: a numbered listing (`12\tcode`, `   12→code`, `12 | code`) in `MIN_SHARE` of the lines;
 * - `json`: exactly one JSON object or array;
 * - `yaml`, `table`: a YAML document, CSV/TSV or an aligned table (structured-shape.ts);
 * - `log`: progress bars, timestamps or log levels opening `MIN_SHARE_LOG` of the lines.
 * Undefined when none fits.
 */
export const WINDOW_CHARS = 64 * 1024;
export const WINDOW_LINES = 200;
const MIN_LINES = 3;
const MIN_SHARE = 0.8;
const MIN_SHARE_LOG = 0.3;

const HUNK = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;
/** Characters of each line that are looked at. */
const LINE_CHARS = 300;

const NUMBER_AFTER_COLON = /^:\d+[:-]/;
const CONTEXT = /^[^\s:]\S*?-\d+-/;
const PATH = /^(?:~|\.{1,2})?\/?[\w.@+-]+(?:\/[\w.@+ -]*)+$/;
const NUMBERED = /^\s*\d+(?:\t|→|\s*\|)/;
const LOG_LINE =
  /^\s*(?:\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL)\b|.*(?:\d\s?%|[━█▓▒░]{3}))/;

export function classOfShape(text: string): ContentClass | undefined {
  const lines = cleanText(text.slice(0, WINDOW_CHARS))
    .split("\n", WINDOW_LINES)
    .map((line) => line.slice(0, LINE_CHARS));
  if (isDiff(lines)) return "diff";
  const filled = lines.filter((line) => line.trim() !== "");
  const share = (test: (line: string) => boolean) =>
    filled.length === 0 ? 0 : filled.filter(test).length / filled.length;
  if (filled.length >= MIN_LINES) {
    if (share(isSearchLine) >= MIN_SHARE) return "search";
    if (share((line) => NUMBERED.test(line)) >= MIN_SHARE) return "file";
  }
  if (isJsonDocument(text)) return "json";
  if (isYamlShape(lines)) return "yaml";
  if (isTableShape(lines)) return "table";
  if (share((line) => LOG_LINE.test(line)) >= MIN_SHARE_LOG) return "log";
  return undefined;
}

/** `path:12:text`, `path-12-text` (a path holding a `/` or `.`), `--`, or a bare path. */
function isSearchLine(line: string): boolean {
  if (line === "--" || PATH.test(line)) return true;
  const colon = line.indexOf(":");
  const path = colon > 0 ? line.slice(0, colon) : "";
  if (/[/.]/.test(path) && !/^\s/.test(path) && NUMBER_AFTER_COLON.test(line.slice(colon)))
    return true;
  const context = CONTEXT.exec(line);
  return context !== null && /[/.]/.test(context[0]);
}

/** A hunk header preceded by a file header. */
function isDiff(lines: readonly string[]): boolean {
  let header = false;
  for (const [index, line] of lines.entries()) {
    if (
      line.startsWith("diff --git ") ||
      line.startsWith("Index: ") ||
      (line.startsWith("--- ") && lines[index + 1]?.startsWith("+++ "))
    ) {
      header = true;
    } else if (header && HUNK.test(line)) {
      return true;
    }
  }
  return false;
}

function isJsonDocument(text: string): boolean {
  // A document too long to parse is told by its outline.
  if (!mayBeJsonDocument(text)) return outlineJson(text) !== undefined;
  const trimmed = text.trim();
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  if (!((first === "{" && last === "}") || (first === "[" && last === "]"))) return false;
  if (!opensJsonDocument(trimmed)) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
