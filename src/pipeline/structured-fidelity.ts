import { mayBeJsonDocument } from "../content/json-limit.js";
import { outlineJson } from "../content/json-outline.js";
import { documentRecords, type Records } from "../content/records.js";
import { lineAtStart, lineStartsOf } from "../text/lines.js";
import type { FidelityViolation } from "./fidelity.js";

/**
 * The fidelity rule for structured documents (content-class.ts), given the content lines of a
 * change (markers and the expand hint removed, fidelity.ts):
 * - `json`: valid JSON stays valid JSON; it holds the same value, or fewer items with a count
 *   (smartcrush's `[k of n items shown]` after the document);
 * - `yaml`, `table`: every received line, in order, except whole records that are not notable
 *   (content/records.ts), each run of them replaced by one note line with its count (`… (12
 *   more rows)`): the note stands for that many records from where it stands. A line dropped
 *   from inside a record, a notable record dropped, records dropped without a note, or a note
 *   whose count is not the records it stands for is a cut record.
 */
export function checkStructured(
  original: string,
  lines: readonly string[],
  kind: "json" | "yaml" | "table",
): FidelityViolation | undefined {
  return kind === "json" ? checkJson(original, lines) : checkRecords(original, lines, kind);
}

/** smartcrush's count after the document: ` [3 of 50 items shown]`. */
const SHOWN = /\[(\d+) of (\d+) items shown\]\s*$/;
const SPACE = /\s/;

/**
 * smartcrush's count at the end of `text`: the numbers shown and in all, and where the document
 * before it ends (whitespace before the count is not the document's). The whitespace is walked
 * back by hand: a pattern that starts with it reads a long run of it again from each of its
 * characters (a kept item's value of 80,000 spaces: 3 s).
 */
function shownCount(text: string): { shown: number; of: number; end: number } | undefined {
  const count = SHOWN.exec(text);
  if (count === null) return undefined;
  let end = count.index;
  while (end > 0 && SPACE.test(text.charAt(end - 1))) end--;
  return { shown: Number(count[1]), of: Number(count[2]), end };
}

function checkJson(original: string, lines: readonly string[]): FidelityViolation | undefined {
  if (!mayBeJsonDocument(original)) return checkOutlined(original, lines);
  const received = parsed(original);
  if (received === undefined) return undefined;
  const text = lines.join("\n");
  const shown = shownCount(text);
  const returned = parsed(shown ? text.slice(0, shown.end) : text);
  if (returned === undefined) return "json_broken";
  if (shown) return shown.shown < shown.of ? undefined : "json_broken";
  return JSON.stringify(returned.value) === JSON.stringify(received.value)
    ? undefined
    : "json_broken";
}

function parsed(text: string): { value: unknown } | undefined {
  if (!mayBeJsonDocument(text)) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * The same rule for a document too long to parse, by its outline (content/json-outline.ts): the
 * text before the count is still one JSON document, with fewer items than it counts; without a
 * count the document comes back as it was received.
 */
function checkOutlined(original: string, lines: readonly string[]): FidelityViolation | undefined {
  if (outlineJson(original) === undefined) return undefined;
  const text = lines.join("\n");
  const shown = shownCount(text);
  if (!shown) return text.trim() === original.trim() ? undefined : "json_broken";
  if (outlineJson(text.slice(0, shown.end)) === undefined) return "json_broken";
  return shown.shown < shown.of ? undefined : "json_broken";
}

/** A note for left-out records, and its count: the first number after the ellipsis. */
const NOTE = /^\s*\u2026\D*?\b([1-9]\d*)\b/;

/**
 * Whether `lines` are the received document with runs of whole records left out, each for a
 * note. The note's count says how many records it stands for: every record of a `kubectl get -o
 * yaml` opens with the same line (`- apiVersion: v1`), as duplicate rows of a table do, so the
 * line after a note cannot tell where the left-out records end.
 */
function checkRecords(
  original: string,
  lines: readonly string[],
  kind: "yaml" | "table",
): FidelityViolation | undefined {
  const received = lineStartsOf(original);
  const found = documentRecords(original, kind);
  let at = 0;
  for (const returned of lines) {
    if (at < received.count && returned === lineAtStart(received, at)) {
      at++;
      continue;
    }
    // A note stands for as many whole records as it counts, from the one that opens here.
    const first = found && recordOpeningAt(found, at);
    const note = NOTE.exec(returned);
    if (found === undefined || first === undefined || note === null) return "record_cut";
    const last = first + Number(note[1]) - 1;
    if (last >= found.count) return "record_cut";
    for (let record = first; record <= last; record++) {
      if (found.notable[record]) return "record_cut";
    }
    at = found.starts[last + 1] as number;
  }
  return at === received.count ? undefined : "record_cut";
}

/**
 * The index of the record that opens at line `line`, if one does. Records are in order, so a
 * search among their first lines finds it; a table of thousands of rows builds no index for
 * the few notes of its collapse.
 */
function recordOpeningAt(records: Records, line: number): number | undefined {
  let low = 0;
  let high = records.count - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const start = records.starts[middle] as number;
    if (start === line) return middle;
    if (start < line) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}
