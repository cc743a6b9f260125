import { itemsOfJson, showItems } from "../content/json-outline.js";
import { notableItems } from "../content/notable.js";
import { documentRecords } from "../content/records.js";
import { lineAtStart, lineStartsOf } from "../text/lines.js";

/**
 * The lines of a table or YAML document `text` (a final newline not starting a line) shortened by whole records (content/records.ts): the
 * header, the first records within `headLines` lines, every notable record (an error, a status
 * that is not normal), the last records within `tailLines` lines, and the trailer; each run of
 * left-out records becomes one note line (`… (12 more rows)`, `… (3 more records)`). The first
 * note carries `marker` (T resolves to the whole original). Undefined when the document has no
 * records or none would be left out.
 */
export function collapseRecords(
  text: string,
  kind: "yaml" | "table",
  headLines: number,
  tailLines: number,
  marker: (phrase: string) => string,
): string[] | undefined {
  const found = documentRecords(text, kind);
  if (found === undefined) return undefined;
  const { head, count, starts, end, notable } = found;
  const sizeOf = (at: number) => (starts[at + 1] as number) - (starts[at] as number);
  // Every notable record is kept.
  const keep = [...notable];
  let budget = headLines;
  for (let at = 0; at < count && sizeOf(at) <= budget; at++) {
    keep[at] = true;
    budget -= sizeOf(at);
  }
  budget = tailLines;
  for (let at = count - 1; at >= 0 && sizeOf(at) <= budget; at--) {
    keep[at] = true;
    budget -= sizeOf(at);
  }
  if (keep.every(Boolean)) return undefined;
  const unit = kind === "table" ? "row" : "record";
  const lines = lineStartsOf(text);
  const kept: string[] = [];
  const linesFrom = (from: number, to: number) => {
    for (let line = from; line < to; line++) kept.push(lineAtStart(lines, line));
  };
  linesFrom(0, head);
  let marked = false;
  let left = 0;
  const flush = () => {
    if (left === 0) return;
    const phrase = `\u2026 (${left} more ${unit}${left === 1 ? "" : "s"})`;
    kept.push(marked ? phrase : marker(phrase));
    marked = true;
    left = 0;
  };
  for (let at = 0; at < count; at++) {
    if (!keep[at]) {
      left++;
      continue;
    }
    flush();
    linesFrom(starts[at] as number, starts[at + 1] as number);
  }
  flush();
  linesFrom(end, lines.count);
  return kept;
}

/**
 * One JSON document shortened by whole items of its array (content/json-outline.ts: the root
 * array, or the one its root object holds): the first items within `headLines` lines, every
 * notable item, the last items within `tailLines` lines, each as spelled, then the count
 * `[k of n items shown]` (smartcrush's). An item on one line counts as one. Undefined when the
 * document has no such array or none would be left out.
 */
export function collapseJsonItems(
  text: string,
  headLines: number,
  tailLines: number,
): string | undefined {
  const array = itemsOfJson(text, 2);
  if (array === undefined) return undefined;
  const { items } = array;
  const linesOf = (at: number) => {
    const { start, end } = items[at] as { start: number; end: number };
    let lines = 1;
    for (let newline = text.indexOf("\n", start); newline >= 0 && newline < end; ) {
      lines++;
      newline = text.indexOf("\n", newline + 1);
    }
    return lines;
  };
  // The items before `head` and from `tail` on are kept; only those between are read.
  let head = 0;
  for (let budget = headLines; head < items.length; head++) {
    const lines = linesOf(head);
    if (lines > budget) break;
    budget -= lines;
  }
  let tail = items.length;
  for (let budget = tailLines; tail > head; tail--) {
    const lines = linesOf(tail - 1);
    if (lines > budget) break;
    budget -= lines;
  }
  if (tail === head) return undefined;
  const notable = notableItems(text, items.slice(head, tail));
  return showItems(text, array, (_, at) => at < head || at >= tail || notable[at - head] === true);
}
