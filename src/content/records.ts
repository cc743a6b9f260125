import { codeAt, isBlankCode } from "../text/char-code.js";
import type { JsonSpan } from "./json-outline.js";
import { notableItems, notableRow } from "./notable.js";

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
  /** Each record's first line and the line after its last, in order, adjacent. */
  readonly records: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  /** The line after the last record (lines from here on are trailer). */
  readonly end: number;
}

/** The records of `lines` of a table or YAML document, or undefined when it has fewer than two. */
export function recordsOf(lines: readonly string[], kind: "yaml" | "table"): Records | undefined {
  const found = kind === "table" ? tableRecords(lines) : yamlRecords(lines);
  return found !== undefined && found.records.length >= 2 ? found : undefined;
}

/** A document's records and, by record, whether it is notable (notableRow, notableRecord). */
export interface DocumentRecords extends Records {
  readonly notable: readonly boolean[];
}

/**
 * The last document read: a reducer reads a long table or YAML document record by record, and
 * the fidelity check of its change reads the same lines again (split on its own), in the same
 * turn of the event loop. Held weakly: a document of megabytes is not kept beyond its request.
 */
let lastDocument:
  | WeakRef<{
      readonly lines: readonly string[];
      readonly kind: "yaml" | "table";
      readonly found: DocumentRecords | undefined;
    }>
  | undefined;

/**
 * The records of `lines` of a table or YAML document with what is notable among them, or
 * undefined when it has fewer than two records. Given lines equal to the last ones read (one
 * comparison a line), the last answer. `source`, when given, is the text `lines` were split from
 * (text/lines.ts: `linesOf(source)`), read in place of the lines joined again.
 */
export function documentRecords(
  lines: readonly string[],
  kind: "yaml" | "table",
  source?: string,
): DocumentRecords | undefined {
  const last = lastDocument?.deref();
  if (last?.kind === kind && sameLines(last.lines, lines)) return last.found;
  const records = recordsOf(lines, kind);
  const header = lines[0] ?? "";
  const found = records && {
    ...records,
    notable:
      kind === "table"
        ? records.records.map(({ start }) => notableRow(header, lines[start] as string))
        : notableYamlRecords(lines, records.records, source),
  };
  lastDocument = new WeakRef({ lines, kind, found });
  return found;
}

/**
 * Whether each record of a YAML document is notable, as notableRecord reads its lines: from one
 * pass over the records' text (notableItems), not a copy of each record read twice. The text is
 * `source`, the text the lines were split from (text/lines.ts), where one is given: joining the
 * lines of a document of megabytes again costs more than reading it.
 */
function notableYamlRecords(
  lines: readonly string[],
  records: Records["records"],
  source: string | undefined,
): readonly boolean[] {
  const first = source === undefined ? (records[0]?.start ?? 0) : 0;
  const spans: JsonSpan[] = [];
  let at = 0;
  let line = first;
  for (const { start, end } of records) {
    for (; line < start; line++) at += (lines[line] as string).length + 1;
    const from = at;
    for (; line < end; line++) at += (lines[line] as string).length + 1;
    spans.push({ start: from, end: at - 1 });
  }
  return notableItems(source ?? lines.slice(first, line).join("\n"), spans);
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let at = 0; at < a.length; at++) if (a[at] !== b[at]) return false;
  return true;
}

const PSQL_RULE = /^-+(?:\+-+)+$|^[-=]{3,}(?:\s+[-=]{3,})*$/;
const PSQL_FOOTER = /^\(\d+ rows?\)$/;

function tableRecords(lines: readonly string[]): Records | undefined {
  let head = 1;
  if (PSQL_RULE.test((lines[1] ?? "").trim())) head = 2;
  let end = lines.length;
  while (
    end > head &&
    (lines[end - 1]?.trim() === "" || PSQL_FOOTER.test(lines[end - 1]?.trim() ?? ""))
  )
    end--;
  const records = [];
  for (let line = head; line < end; line++) records.push({ start: line, end: line + 1 });
  return { head, records, end };
}

const ITEM = /^(\s*)- /;
const DOCUMENT = /^---(?:\s|$)/;
const TOP_KEY = /^[^\s#-][^:]*:(?:\s|$)/;

function yamlRecords(lines: readonly string[]): Records | undefined {
  return (
    sequenceRecords(lines) ??
    splitRecords(lines, (line) => DOCUMENT.test(line)) ??
    splitRecords(lines, (line) => TOP_KEY.test(line))
  );
}

/** The items of the first block sequence with two or more items, at its own indentation. */
function sequenceRecords(lines: readonly string[]): Records | undefined {
  for (let first = 0; first < lines.length; first++) {
    const opening = ITEM.exec(lines[first] as string);
    if (!opening) continue;
    const indent = (opening[1] as string).length;
    const records: Array<{ start: number; end: number }> = [];
    let start = first;
    let line = first + 1;
    for (; line < lines.length; line++) {
      const text = lines[line] as string;
      const depth = indentOf(text);
      if (depth === -1 || depth > indent) continue;
      if (depth === indent && text.startsWith("- ", indent)) {
        records.push({ start, end: line });
        start = line;
        continue;
      }
      break;
    }
    let end = line;
    // Blank lines after the last item belong to the trailer.
    while (end > start + 1 && indentOf(lines[end - 1] as string) === -1) end--;
    records.push({ start, end });
    if (records.length >= 2) return { head: first, records, end };
    first = line - 1;
  }
  return undefined;
}

/**
 * White space characters a line opens with, -1 for a line of white space alone: what `trim` and
 * `trimStart` tell, without a new string for each line of a document of megabytes.
 */
function indentOf(line: string): number {
  for (let at = 0; at < line.length; at++) if (!isBlankCode(codeAt(line, at))) return at;
  return -1;
}

/** Records that open at each line `opens` accepts, the last one running to the end. */
function splitRecords(
  lines: readonly string[],
  opens: (line: string) => boolean,
): Records | undefined {
  const starts: number[] = [];
  for (const [index, line] of lines.entries()) if (opens(line)) starts.push(index);
  if (starts.length < 2) return undefined;
  let end = lines.length;
  while (end > (starts.at(-1) as number) + 1 && (lines[end - 1] as string).trim() === "") end--;
  const records = starts.map((start, index) => ({ start, end: starts[index + 1] ?? end }));
  return { head: starts[0] as number, records, end };
}
