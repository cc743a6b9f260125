import { codeAt } from "../text/char-code.js";
import { QUOTE } from "../wire/json-chars.js";

/**
 * Whether the first lines of an output have the shape of a structured document that is not
 * JSON (content-class.ts), for outputs whose call does not say what they are:
 * - `yaml`: at least `MIN_LINES` non-blank lines, nearly all of them `key: value`, `key:`,
 *   `- item`, `---` or comments (block scalars' lines aside), with some nesting (an indented key,
 *   a sequence item or a document separator), so a flat `LEVEL: message` log is not YAML;
 * - `table`: a header and at least two rows that are CSV or TSV with the header's number of
 *   fields, a psql table (`a | b` over a `---+---` rule), or an aligned table whose upper-case
 *   header (`NAME   READY   STATUS`, `CONTAINER ID   IMAGE`) starts a column where every row has
 *   one (or nothing) (`docker ps`, `kubectl get`).
 * The lines are what class-by-shape.ts reads: the start of the output, cleaned of ANSI colours.
 */
const MIN_LINES = 3;
const MIN_SHARE = 0.9;

const KEY_LINE = /^(\s*)(?:- )*(?:"[^"]*"|'[^']*'|[\w./@$-]+):(?:[ \t]+(\S.*))?$/;
const ITEM_LINE = /^\s*-(?:[ \t].*)?$/;
const OTHER_LINE = /^\s*(?:#.*|---(?:\s.*)?|\.\.\.)$/;
const BLOCK_SCALAR = /^[|>][+-]?\d*\s*(?:#.*)?$/;

export function isYamlShape(lines: readonly string[]): boolean {
  let filled = 0;
  let matching = 0;
  let keys = 0;
  let nested = false;
  let block = -1;
  for (const line of lines) {
    if (line.trim() === "") continue;
    filled++;
    const indent = line.length - line.trimStart().length;
    if (block >= 0 && indent > block) {
      matching++;
      continue;
    }
    block = -1;
    const key = KEY_LINE.exec(line);
    if (key) {
      matching++;
      keys++;
      if (indent > 0 || line.trimStart().startsWith("- ")) nested = true;
      if (BLOCK_SCALAR.test(key[2] ?? "")) block = indent;
    } else if (ITEM_LINE.test(line)) {
      matching++;
      nested = true;
    } else if (OTHER_LINE.test(line)) {
      matching++;
      if (line.startsWith("---")) nested = true;
    }
  }
  return filled >= MIN_LINES && keys >= 2 && nested && matching / filled >= MIN_SHARE;
}

const PSQL_RULE = /^-+(?:\+-+)+$/;
const UPPER_HEADER = /^[A-Z][A-Z0-9_()%/.-]*(?: [A-Z0-9_()%/.-]+)*$/;

export function isTableShape(lines: readonly string[]): boolean {
  const filled = lines.filter((line) => line.trim() !== "");
  if (filled.length < MIN_LINES) return false;
  const header = filled[0] as string;
  if (header.includes("|") && PSQL_RULE.test((filled[1] as string).trim())) return true;
  for (const delimiter of ["\t", ","]) {
    const fields = fieldCount(header, delimiter);
    if (fields < 2) continue;
    const rows = filled.slice(1);
    const same = rows.filter((row) => fieldCount(row, delimiter) === fields).length;
    if (same / rows.length >= MIN_SHARE && header.split(delimiter).every(isHeaderCell)) return true;
  }
  return isAlignedTable(header, filled.slice(1));
}

/**
 * Fields of a delimited line, quotes respected. Read by UTF-16 unit: a quote and a delimiter are
 * each one unit, which no surrogate pair holds.
 */
function fieldCount(line: string, delimiter: string): number {
  const separator = codeAt(delimiter, 0);
  let count = 1;
  let quoted = false;
  for (let at = 0; at < line.length; at++) {
    const code = codeAt(line, at);
    if (code === QUOTE) quoted = !quoted;
    else if (code === separator && !quoted) count++;
  }
  return count;
}

function isHeaderCell(cell: string): boolean {
  const trimmed = cell.trim().replace(/^"|"$/g, "");
  return trimmed.length > 0 && trimmed.length <= 64;
}

/** An upper-case header of two or more columns, each column starting where every row has a cell. */
function isAlignedTable(header: string, rows: readonly string[]): boolean {
  const cells = header.trim().split(/\s{2,}/);
  if (cells.length < 2 || !cells.every((cell) => UPPER_HEADER.test(cell))) return false;
  const starts: number[] = [];
  for (const match of header.matchAll(/\S+(?: \S+)*/g)) starts.push(match.index);
  const aligned = rows.filter((row) =>
    starts.slice(1).every((start, index) => {
      if (row[start - 1] !== " ") return false;
      // A column may be empty in a row (`docker ps` without ports).
      return /\S/.test(row[start] ?? "") || row.slice(start, starts[index + 2]).trim() === "";
    }),
  ).length;
  return aligned / rows.length >= MIN_SHARE;
}
