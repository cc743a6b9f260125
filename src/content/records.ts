import { codeAt, isBlankCode } from "../text/char-code.js";
import { LastRead } from "../text/last-read.js";
import { type LineStarts, lineAtStart, lineStartsOf, lineStartsOfLines } from "../text/lines.js";
import { notableItems, notableRows } from "./notable.js";

/**
 * The records of a structured document (content-class.ts), as line ranges, so that a reducer
 * keeps or drops whole records and the fidelity check can tell a record dropped whole from one
 * cut in the middle:
 * - `table`: the header (the first line, and a psql `---+---` rule under it) and one record per
 *   row; a psql `(12 rows)` footer is trailer;
 * - `yaml`: the items of the first block sequence that has at least two (`items:` of
 *   `kubectl get -o yaml`, a list at the root), each from its `- ` line to the next item; else
 *   the documents of a `---`-separated stream; else the top-level keys. Lines before the first
 *   record are the header, lines after the last one (a sequence's closing keys) the trailer.
 *
 * A record is notable when it carries an error word or a status that is not normal
 * (content/notable.ts): those are always kept.
 */
export interface Records {
  /** Lines before the first record. */
  readonly head: number;
  /** How many records there are. */
  readonly count: number;
  /**
   * Each record's first line, in order, then `end`: the records are adjacent, so record `k` is
   * lines `starts[k]` up to `starts[k + 1]` (`starts[0]` is `head`). Numbers, not an object a
   * record: the eleven thousand rows of a megabyte table made as many objects, a millisecond's
   * work, most of it the collector's.
   */
  readonly starts: readonly number[];
  /** The line after the last record (lines from here on are trailer). */
  readonly end: number;
}

/** The records of `lines` of a table or YAML document, or undefined when it has fewer than two. */
export function recordsOf(lines: readonly string[], kind: "yaml" | "table"): Records | undefined {
  return recordsIn(lineStartsOfLines(lines), kind);
}

function recordsIn(lines: LineStarts, kind: "yaml" | "table"): Records | undefined {
  const found = kind === "table" ? tableRecords(lines) : yamlRecords(lines);
  return found !== undefined && found.count >= 2 ? found : undefined;
}

/** A document's records and, by record, whether it is notable (notableRow, notableRecord). */
export interface DocumentRecords extends Records {
  readonly notable: readonly boolean[];
}

/**
 * The last document read: a reducer reads a long table or YAML document record by record, and
 * the fidelity check of its change reads the same document again.
 */
const lastDocument = new LastRead<DocumentRecords | undefined>();

/**
 * The records of a table or YAML document with what is notable among them, or undefined when it
 * has fewer than two records. The document is a text (a final newline starting no line; its lines read by
 * where each starts: a line is made a string only where a record is read as one) or its lines.
 * Given a document equal to the last one read, the last answer.
 */
export function documentRecords(
  document: string | readonly string[],
  kind: "yaml" | "table",
): DocumentRecords | undefined {
  const lines = typeof document === "string" ? lineStartsOf(document) : lineStartsOfLines(document);
  return lastDocument.read(lines.text, kind, () => readDocument(lines, kind));
}

function readDocument(lines: LineStarts, kind: "yaml" | "table"): DocumentRecords | undefined {
  const records = recordsIn(lines, kind);
  return (
    records && {
      ...records,
      notable:
        kind === "table"
          ? notableRows(lines, records.head, records.end)
          : notableItems(
              lines.text,
              records.starts.slice(0, -1).map((start, at) => ({
                start: lines.starts[start] as number,
                end: (lines.starts[records.starts[at + 1] as number] as number) - 1,
              })),
            ),
    }
  );
}

const PSQL_RULE = /^-+(?:\+-+)+$|^[-=]{3,}(?:\s+[-=]{3,})*$/;
const PSQL_FOOTER = /^\(\d+ rows?\)$/;

function tableRecords(lines: LineStarts): Records | undefined {
  const line = (at: number) => (at < lines.count ? lineAtStart(lines, at) : undefined);
  let head = 1;
  if (PSQL_RULE.test((line(1) ?? "").trim())) head = 2;
  let end = lines.count;
  while (
    end > head &&
    (line(end - 1)?.trim() === "" || PSQL_FOOTER.test(line(end - 1)?.trim() ?? ""))
  )
    end--;
  const starts: number[] = [];
  for (let row = head; row <= end; row++) starts.push(row);
  return { head, count: end - head, starts, end };
}

const DOCUMENT = /^---(?:\s|$)/;
const TOP_KEY = /^[^\s#-][^:]*:(?:\s|$)/;

function yamlRecords(lines: LineStarts): Records | undefined {
  return (
    sequenceRecords(lines) ??
    splitRecords(lines, (line) => DOCUMENT.test(line)) ??
    splitRecords(lines, (line) => TOP_KEY.test(line))
  );
}

const DASH = 0x2d;
const SPACE = 0x20;

/**
 * The items of the first block sequence with two or more items, at its own indentation. A line
 * opens an item when `- ` follows its indentation (what `/^(\s*)- /` finds: the white space
 * before it is all there is of it); lines are read by their characters, none made a string.
 */
function sequenceRecords(lines: LineStarts): Records | undefined {
  const { text, count, starts } = lines;
  const opensItemAt = (line: number, indent: number) => {
    const at = (starts[line] as number) + indent;
    return (
      codeAt(text, at) === DASH &&
      codeAt(text, at + 1) === SPACE &&
      at + 1 < (starts[line + 1] as number) - 1
    );
  };
  for (let first = 0; first < count; first++) {
    const indent = indentAt(lines, first);
    if (indent === -1 || !opensItemAt(first, indent)) continue;
    const items = [first];
    let line = first + 1;
    for (; line < count; line++) {
      const depth = indentUpTo(lines, line, indent);
      if (depth === -1) continue;
      if (depth === indent && opensItemAt(line, indent)) {
        items.push(line);
        continue;
      }
      break;
    }
    let end = line;
    // Blank lines after the last item belong to the trailer.
    while (end > (items.at(-1) as number) + 1 && indentAt(lines, end - 1) === -1) end--;
    if (items.length >= 2) {
      items.push(end);
      return { head: first, count: items.length - 1, starts: items, end };
    }
    first = line - 1;
  }
  return undefined;
}

/**
 * White space characters line `line` opens with, -1 for a line of white space alone: what `trim`
 * and `trimStart` tell, without a string for the line.
 */
function indentAt(lines: LineStarts, line: number): number {
  const from = lines.starts[line] as number;
  const to = (lines.starts[line + 1] as number) - 1;
  for (let at = from; at < to; at++) if (!isBlankCode(codeAt(lines.text, at))) return at - from;
  return -1;
}

/**
 * indentAt of line `line` when it is `depth` or less, else -1 (a line indented deeper, or of
 * white space alone): read no further than `depth` + 1 characters. Most lines of a long sequence
 * are deeper than its items (a pod's fields under its `- `), and are read a character or two each.
 */
function indentUpTo(lines: LineStarts, line: number, depth: number): number {
  const from = lines.starts[line] as number;
  const to = Math.min(from + depth + 1, (lines.starts[line + 1] as number) - 1);
  for (let at = from; at < to; at++) if (!isBlankCode(codeAt(lines.text, at))) return at - from;
  return -1;
}

/** Records that open at each line `opens` accepts, the last one running to the end. */
function splitRecords(lines: LineStarts, opens: (line: string) => boolean): Records | undefined {
  const starts: number[] = [];
  for (let line = 0; line < lines.count; line++) {
    if (opens(lineAtStart(lines, line))) starts.push(line);
  }
  if (starts.length < 2) return undefined;
  let end = lines.count;
  while (end > (starts.at(-1) as number) + 1 && indentAt(lines, end - 1) === -1) end--;
  const count = starts.length;
  starts.push(end);
  return { head: starts[0] as number, count, starts, end };
}
