import { codeAt, isBlankCode } from "../text/char-code.js";
import { type LineStarts, lineAtStart } from "../text/lines.js";
import type { JsonSpan } from "./json-outline.js";

/*
 * What makes a record of a tool output notable, so that no reducer drops it: an error word
 * (`failed`, `timed out`, `OOMKilled`), or a status-like field or column whose value is not
 * normal (`"phase": "Pending"`, `state=down`, a `READY` of `0/1`). Asked of every record of a
 * table or YAML document (content/records.ts) and of every item of a JSON array
 * (record-collapse, smartcrush).
 */

/**
 * Error words (patterns): a record that mentions one is always kept. Letters, `?` and `\s` only,
 * each ending with a letter (notableItems relies on it).
 */
const ERROR_WORDS = [
  "error fail exception panic fatal traceback crash backoff oomkilled evicted unhealthy denied",
  "refused timed?\\s?out invalid missing not\\s?found unavailable degraded",
]
  .join(" ")
  .split(" ");
/** Names of status-like fields. */
const STATUS_NAMES =
  "status phase state health healthy ready condition result outcome conclusion".split(" ");

/**
 * Words (lower case, each starting with a letter) as alternatives of one pattern, those that
 * start with the same letter under that letter (`f(?:ail|atal)`): at each character a search
 * tries the letters words start with, not every word, and reads a megabyte of pods a fifth
 * faster. It finds what `words.join("|")` finds: the words that start with a letter are tried in
 * the order given, and no two letters match the same character.
 */
function byFirstLetter(words: readonly string[]): string {
  const rests = new Map<string, string[]>();
  for (const word of words) {
    const letter = word.charAt(0);
    const known = rests.get(letter);
    if (known === undefined) rests.set(letter, [word.slice(1)]);
    else known.push(word.slice(1));
  }
  return [...rests]
    .map(([letter, after]) =>
      after.length === 1 ? letter + after[0] : `${letter}(?:${after.join("|")})`,
    )
    .join("|");
}

/** Any error word. */
const ERROR_WORD = new RegExp(byFirstLetter(ERROR_WORDS), "i");
/**
 * A status-like field's name and separator, up to where its value starts (`phase: `,
 * `"status": "`, `state=`); a quote before the name may be there or not, so the match starts at
 * the name. The value is read by `fieldAt`.
 */
const STATUS_NAME = new RegExp(
  `\\b(?:${byFirstLetter(STATUS_NAMES)})["']?[ \\t]*[:=][ \\t]*["']?`,
  "gim",
);
/** What ends a field's value: a quote, a comma, a brace, or a line's end. */
const VALUE_STOP = /["',}\n\r\u2028\u2029]/g;
/** Where a status field's value stops, and where the field ends (-1: no field there). */
interface Field {
  readonly stop: number;
  readonly end: number;
}

/**
 * The field whose value would start at `from` (after a STATUS_NAME): a value starts with a
 * character that is not a quote, a comma, a brace or whitespace, and runs to the first quote,
 * comma, brace or line end (`stop`). It is a field when it ends there, at a comma or brace
 * (which the field takes), at a line's end or the text's, or at a quote followed, after spaces
 * or tabs, by one of those; its value is the run without its trailing whitespace. These are the
 * fields of one pattern, `name["']?[ \t]*[:=][ \t]*["']?([^"',}\s][^"',}\n]*?)["']?[ \t]*(?:[,}]|$)`
 * with flags `gim`, read without backtracking: that pattern takes time quadratic in a run with no
 * end to it (a key of `state=` repeated, a value padded with spaces), where this reads each
 * character a bounded number of times. A value that is no field leaves no field in its run: a
 * value starting later in the run has the same stop, so the same end (the caller skips them).
 */
function fieldAt(text: string, from: number): Field {
  if (!startsValue(text, from)) return { stop: from, end: -1 };
  VALUE_STOP.lastIndex = from + 1;
  const stop = VALUE_STOP.test(text) ? VALUE_STOP.lastIndex - 1 : text.length;
  const code = codeAt(text, stop);
  if (code === 0x2c || code === 0x7d) return { stop, end: stop + 1 };
  if (code !== 0x22 && code !== 0x27) return { stop, end: stop };
  let after = stop + 1;
  while (codeAt(text, after) === 0x20 || codeAt(text, after) === 0x09) after++;
  const next = codeAt(text, after);
  if (next === 0x2c || next === 0x7d) return { stop, end: after + 1 };
  if (after === text.length || next === 0x0a || next === 0x0d || next === 0x2028 || next === 0x2029)
    return { stop, end: after };
  return { stop, end: -1 };
}

/**
 * Whether a field's value starts at `from`: with a character that is not a quote, a comma, a
 * brace or whitespace (`[^"',}\s]`).
 */
function startsValue(text: string, from: number): boolean {
  const code = codeAt(text, from);
  return (
    from < text.length &&
    code !== 0x22 &&
    code !== 0x27 &&
    code !== 0x2c &&
    code !== 0x7d &&
    !isBlankCode(code)
  );
}

/** Values of a status field, or of a table's status column, that are normal. */
const NORMAL =
  /^(?:running|succeeded|success|successful|completed?|complete|ready|true|ok|okay|healthy|active|up|passed|pass|enabled|available|bound|established|done|finished|1|yes|none|null|0\/0|\d+\/\d+ running|up .*|exited \(0\).*)$/i;

/**
 * The last field value found NORMAL, as spelled: the status fields of a long document mostly
 * repeat one value (`phase: Running`), which is then not matched again.
 */
let lastNormal = "";

/** Whether the value of `text` from `from` up to `stop`, trimmed, is NORMAL. */
function isNormalValue(text: string, from: number, stop: number): boolean {
  let end = stop;
  while (end > from && isBlankCode(codeAt(text, end - 1))) end--;
  const value = text.slice(from, end);
  if (value === lastNormal) return true;
  if (!NORMAL.test(value)) return false;
  lastNormal = value;
  return true;
}

/**
 * Whether a record's text carries an error word or a status field whose value is not normal.
 * Every item of a multi-megabyte API dump is asked, so the fields are read by one pattern's own
 * loop (no iterator, no copy of the pattern per record).
 */
export function notableRecord(text: string): boolean {
  if (ERROR_WORD.test(text)) return true;
  const names = STATUS_NAME;
  // Values starting up to here are no field (fieldAt).
  let none = -1;
  names.lastIndex = 0;
  while (names.exec(text) !== null) {
    const from = names.lastIndex;
    if (from <= none) continue;
    const field = fieldAt(text, from);
    if (field.end < 0) {
      none = field.stop;
      continue;
    }
    if (!isNormalValue(text, from, field.stop)) return true;
    names.lastIndex = field.end;
  }
  return false;
}

/**
 * ERROR_WORD or STATUS_NAME (in its group), whichever starts first (no name of a status starts
 * as an error word does, nor holds the start of one): one pass reads a text for both, where each
 * pattern's own pass costs about as much.
 */
const NOTABLE_PART = new RegExp(`${ERROR_WORD.source}|(${STATUS_NAME.source})`, "gim");

/**
 * For each item of a JSON array (content/json-outline.ts: in order, apart only by a comma and
 * JSON whitespace) or each record of a YAML document (content/records.ts: in order, apart by the
 * line end between them), whether `notableRecord` holds for its text, from one pass over the
 * items rather than two passes over each: an API dump has thousands of items, a pod list
 * thousands of records. The answers are the same:
 * - an error word is letters and at most one whitespace character: it lies within one item,
 *   unless that character is the line end after a record (`timed` + a line end + `out`): an item
 *   an error word reads past is read on its own (never one of a JSON array, whose items end
 *   with a quote, a bracket, a digit or a literal);
 * - a status field starts with a name, after a character that is not a word's: an item's first
 *   (after `[`, `,` or whitespace) as much as at the start of its own text. Its value has no
 *   comma, so it ends at most at the comma after the item. Where an item's own text ends, `$`
 *   ends a field; in the array, after the item come spaces or tabs and then a comma or a line
 *   end, which end it too, with the same value. The pass stops at the end of the last item,
 *   which ends as its own text does;
 * - the pass goes on after a status field of a normal value from where the value starts, as
 *   where one item is read the error words are looked for everywhere (`Up 2 hours (unhealthy)`),
 *   but the names of status fields only after the field: a name the pass finds within it is
 *   passed over (no match of a name holds the field's end, which is a comma, a brace, or comes
 *   before a line end). No error word starts within a name and its separator after its first
 *   letter, where the pass has tried them all, so the pass skips none.
 * Matches are found without being made strings (most are the status fields of every record): an
 * error word ends with a letter and a name's separator does not, and the rarer error word is
 * found again, with where it starts, from where the search for it began. Every text is read a
 * bounded number of times.
 */
export function notableItems(text: string, items: readonly JsonSpan[]): boolean[] {
  const notable = new Array<boolean>(items.length).fill(false);
  const first = items[0];
  const last = items.at(-1);
  if (first === undefined || last === undefined) return notable;
  const offset = first.start;
  const region = text.slice(offset, last.end);
  const pattern = NOTABLE_PART;
  // The item a match starts in: matches come in order, so the search goes on from the last one.
  let item = 0;
  // Values starting up to here are no field (fieldAt).
  let none = -1;
  // Names ending up to here are within a normal field's value, and not read as fields.
  let inField = -1;
  pattern.lastIndex = 0;
  for (;;) {
    const searchFrom = pattern.lastIndex;
    if (!pattern.test(region)) break;
    // Where the match ends: after an error word, or where the value of a name's field starts.
    const from = pattern.lastIndex;
    if (!isLetter(codeAt(region, from - 1))) {
      if (from <= inField || from <= none) continue;
      const field = fieldAt(region, from);
      if (field.end < 0) {
        none = field.stop;
        continue;
      }
      if (isNormalValue(region, from, field.stop)) {
        inField = field.end;
        continue;
      }
      // A status that is not normal: the rest of the item is not read.
      const at = nameStart(region, from);
      while ((items[item] as JsonSpan).end - offset <= at) item++;
      notable[item] = true;
      pattern.lastIndex = Math.max(field.end, (items[item] as JsonSpan).end - offset);
      continue;
    }
    pattern.lastIndex = searchFrom;
    const at = (pattern.exec(region) as RegExpExecArray).index;
    while ((items[item] as JsonSpan).end - offset <= at) item++;
    const { start, end: itemEnd } = items[item] as JsonSpan;
    // An error word: the rest of the item is not read.
    notable[item] = from <= itemEnd - offset || notableRecord(text.slice(start, itemEnd));
    pattern.lastIndex = Math.max(from, itemEnd - offset);
  }
  return notable;
}

/** An ASCII letter. */
function isLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/**
 * Where the name of a STATUS_NAME match ending at `end` starts, read back over its separator
 * (`["']?[ \t]*[:=][ \t]*["']?`) and its letters: a name follows no word character.
 */
function nameStart(text: string, end: number): number {
  const isQuote = (code: number) => code === 0x22 || code === 0x27;
  const isGap = (code: number) => code === 0x20 || code === 0x09;
  let at = end;
  if (isQuote(codeAt(text, at - 1))) at--;
  while (isGap(codeAt(text, at - 1))) at--;
  // The `:` or `=`.
  at--;
  while (isGap(codeAt(text, at - 1))) at--;
  if (isQuote(codeAt(text, at - 1))) at--;
  while (isLetter(codeAt(text, at - 1))) at--;
  return at;
}

/** Whether a table row is notable: an error word, or a status/ready column that is not normal. */
export function notableRow(header: string, row: string): boolean {
  return ERROR_WORD.test(row) || hasAbnormalCell(tableHeader(header), row);
}

/** ERROR_WORD, searching a text from `lastIndex`. */
const ANY_ERROR_WORD = new RegExp(ERROR_WORD.source, "gi");

/**
 * For each row of a table, lines `first` up to `end` of `lines` under its header (line 0),
 * whether notableRow holds for it. A megabyte table has eleven thousand rows: the error words
 * are looked for in one search over them all, not one a row, and a status cell equal to the
 * one above it, which was normal, is not read again. The answers are the same: an error word
 * reads nothing around it, so the first one the search finds from where a row starts is the
 * first in that row alone, unless it reads past the row's end (`timed` closing one row, `out`
 * opening the next): that row is then read on its own. The search goes on from the next row.
 */
export function notableRows(lines: LineStarts, first: number, end: number): boolean[] {
  const { text, starts } = lines;
  const notable = new Array<boolean>(end - first).fill(false);
  if (end <= first) return notable;
  const words = ANY_ERROR_WORD;
  const stop = (starts[end] as number) - 1;
  words.lastIndex = starts[first] as number;
  let row = first;
  for (let match = words.exec(text); match !== null && match.index < stop; ) {
    while ((starts[row + 1] as number) <= match.index) row++;
    const rowEnd = (starts[row + 1] as number) - 1;
    notable[row - first] =
      match.index + match[0].length <= rowEnd || ERROR_WORD.test(lineAtStart(lines, row));
    if (rowEnd >= stop) break;
    words.lastIndex = rowEnd + 1;
    match = words.exec(text);
  }
  const table = tableHeader(lineAtStart(lines, 0));
  if (table.columns.length === 0) return notable;
  const normalAbove: Array<string | undefined> = [];
  for (let row = first; row < end; row++) {
    if (!notable[row - first]) {
      notable[row - first] = hasAbnormalCell(table, lineAtStart(lines, row), normalAbove);
    }
  }
  return notable;
}

/**
 * Whether a status/ready cell of `row` is not normal. `normalAbove`, when given, holds for each
 * status column the last cell found normal (as spelled, before trimming), and is kept up to date:
 * a cell spelled the same is normal too.
 */
function hasAbnormalCell(
  table: TableHeader,
  row: string,
  normalAbove?: Array<string | undefined>,
): boolean {
  if (table.columns.length === 0) return false;
  const cells = table.delimiter === undefined ? undefined : row.split(table.delimiter);
  for (let at = 0; at < table.columns.length; at++) {
    const column = table.columns[at] as number;
    const cell = cells === undefined ? alignedCell(table.starts, row, column) : cells[column];
    if (cell === undefined || cell === normalAbove?.[at]) continue;
    if (!isNormalCell(cell.trim())) return true;
    if (normalAbove !== undefined) normalAbove[at] = cell;
  }
  return false;
}

/** A status or ready cell that is not notable: empty, `n/n`, or a NORMAL value. */
function isNormalCell(cell: string): boolean {
  if (cell === "") return true;
  const ready = /^(\d+)\/(\d+)$/.exec(cell);
  if (ready) return ready[1] === ready[2];
  return NORMAL.test(cell);
}

const STATUS_HEADER = /^(?:status|phase|state|health|ready|condition|result)$/i;

/**
 * A table's header as its rows are read: the delimiter of its cells (a tab, `|` or `,`), else
 * where its aligned columns start; and which columns are status-like.
 */
interface TableHeader {
  readonly header: string;
  readonly delimiter: string | undefined;
  readonly starts: readonly number[];
  readonly columns: readonly number[];
}

/**
 * The last header read: every row of a table asks for it, so a header is read once a table, not
 * once a row (a header of thousands of columns over thousands of rows).
 */
let lastHeader: TableHeader | undefined;

function tableHeader(header: string): TableHeader {
  if (lastHeader?.header === header) return lastHeader;
  const delimiter = ["\t", "|", ","].find((candidate) => header.includes(candidate));
  const cells = delimiter === undefined ? header.trim().split(/\s{2,}/) : header.split(delimiter);
  const columns = cells
    .map((cell, index) => (STATUS_HEADER.test(cell.trim()) ? index : -1))
    .filter((index) => index >= 0);
  const starts: number[] = [];
  if (delimiter === undefined && columns.length > 0) {
    for (const match of header.matchAll(/\S+(?:\s\S+)*/g)) starts.push(match.index);
  }
  lastHeader = { header, delimiter, starts, columns };
  return lastHeader;
}

/** Cell `column` of an aligned row: from its column's start to the next one's, if it has one. */
function alignedCell(starts: readonly number[], row: string, column: number): string | undefined {
  const start = starts[column];
  return start === undefined ? undefined : row.slice(start, starts[column + 1] ?? row.length);
}
