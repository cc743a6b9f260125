import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { notableRecord, notableRow, notableRows } from "../../src/content/notable.js";
import { documentRecords } from "../../src/content/records.js";
import { lineStartsOf } from "../../src/text/lines.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/**
 * The reference: the fields as one pattern finds them, with backtracking. notableRecord reads
 * the same fields without it (content/notable.ts, fieldAt).
 */
const ERROR_WORD =
  /error|fail|exception|panic|fatal|traceback|crash|backoff|oomkilled|evicted|unhealthy|denied|refused|timed?\s?out|invalid|missing|not\s?found|unavailable|degraded/i;
const STATUS_FIELD =
  /\b(?:status|phase|state|health|healthy|ready|condition|result|outcome|conclusion)["']?[ \t]*[:=][ \t]*["']?([^"',}\s][^"',}\n]*?)["']?[ \t]*(?:[,}]|$)/gim;
const NORMAL =
  /^(?:running|succeeded|success|successful|completed?|complete|ready|true|ok|okay|healthy|active|up|passed|pass|enabled|available|bound|established|done|finished|1|yes|none|null|0\/0|\d+\/\d+ running|up .*|exited \(0\).*)$/i;

function referenceNotable(text: string): boolean {
  if (ERROR_WORD.test(text)) return true;
  for (const match of text.matchAll(STATUS_FIELD)) {
    if (!NORMAL.test((match[1] as string).trim())) return true;
  }
  return false;
}

/** The reference for a table's rows: the header read again for each row. */
const STATUS_HEADER = /^(?:status|phase|state|health|ready|condition|result)$/i;

function referenceRow(header: string, row: string): boolean {
  if (ERROR_WORD.test(row)) return true;
  const delimiter = ["\t", "|", ","].find((candidate) => header.includes(candidate));
  const columns = (
    delimiter === undefined ? header.trim().split(/\s{2,}/) : header.split(delimiter)
  )
    .map((cell, index) => (STATUS_HEADER.test(cell.trim()) ? index : -1))
    .filter((index) => index >= 0);
  if (columns.length === 0) return false;
  let cells: string[];
  if (delimiter !== undefined) cells = row.split(delimiter);
  else {
    const starts: number[] = [];
    for (const match of header.matchAll(/\S+(?:\s\S+)*/g)) starts.push(match.index);
    cells = starts.map((start, index) => row.slice(start, starts[index + 1] ?? row.length));
  }
  for (const column of columns) {
    const cell = (cells[column] ?? "").trim();
    if (cell === "") continue;
    const ready = /^(\d+)\/(\d+)$/.exec(cell);
    if (ready) {
      if (ready[1] !== ready[2]) return true;
      continue;
    }
    if (!NORMAL.test(cell)) return true;
  }
  return false;
}

const name = fc.constantFrom("status", "STATE", "phase", "health", "healthy", "Result", "xstate");
const separator = fc.constantFrom(":", "=", ": ", " = ", '": "', "':'", ':"', "=\t'", ":\u00a0");
const value = fc.constantFrom(
  "Running",
  "up",
  "Up 2 hours",
  "ok",
  "1/1 running",
  "Pending",
  "down",
);
/** Whitespace of every kind: spaces and tabs, line ends, and what is neither. */
const space = fc.constantFrom(" ", "  ", "\t", "\n", "\r", "\r\n", "\u2028", "\u2029", "\u00a0");
/** What may end a field, or seem to: quotes, commas, braces, whitespace. */
const closer = fc
  .array(fc.oneof(space, fc.constantFrom('"', "'", ",", "}", "]", "x")), { maxLength: 3 })
  .map((parts) => parts.join(""));
const field = fc.tuple(name, separator, value, closer).map((parts) => parts.join(""));
const piece = fc.oneof(
  field,
  name,
  separator,
  value,
  closer,
  fc.constantFrom("error", "timed", "out", "9", "-", "{", "\\"),
);
const text = fc.array(piece, { maxLength: 10 }).map((pieces) => pieces.join(""));

describe("notableRecord", () => {
  it("reads the fields one backtracking pattern reads, and answers as it does", () => {
    fc.assert(
      fc.property(text, (record) => {
        expect(notableRecord(record)).toBe(referenceNotable(record));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it.each([
    ['{"status": "down"}', true],
    ['{"status": "up"  ,"x":1}', false],
    ["status: 'pending' \t}", true],
    // A value ends at a quote only where the field ends after it.
    ['status: "down" x', false],
    ['status: "down" x, phase: pending', true],
    // A line's end ends a field, of whatever kind (\r, \u2028), and so does the text's.
    ["state=bad\rx", true],
    ["state=bad\u2028", true],
    ["state=bad", true],
    // A value does not start with whitespace other than spaces and tabs.
    ["state=\u00a0bad", false],
  ])("%j is notable: %s", (record, expected) => {
    expect(referenceNotable(record)).toBe(expected);
    expect(notableRecord(record)).toBe(expected);
  });

  it("finds every error word and every status name, in any case, as the reference does", () => {
    const words = [
      "error",
      "fail",
      "exception",
      "panic",
      "fatal",
      "traceback",
      "crash",
      "backoff",
      "oomkilled",
      "evicted",
      "unhealthy",
      "denied",
      "refused",
      "timed out",
      "time out",
      "timeout",
      "invalid",
      "missing",
      "not found",
      "notfound",
      "unavailable",
      "degraded",
    ];
    const names = [
      "status",
      "phase",
      "state",
      "health",
      "healthy",
      "ready",
      "condition",
      "result",
      "outcome",
      "conclusion",
    ];
    const records = [
      ...words.flatMap((word) => [word, word.toUpperCase(), `a ${word}.`, word.slice(0, -1)]),
      ...names.flatMap((name) => [`${name}: down`, `${name.toUpperCase()}=ok`, `x${name}: down`]),
    ];
    for (const record of records) expect(notableRecord(record)).toBe(referenceNotable(record));
    expect(words.filter((word) => !notableRecord(word))).toEqual([]);
  });

  // The reference pattern takes minutes on each of these (time quadratic in the run with no end
  // to a field); read without backtracking, they are read in a few passes.
  it.each([
    ["a key of fields with no end to them", `{"${"state=".repeat(50_000)}x": 1}`, false],
    ["a value padded with spaces", `{"status": "a${" ".repeat(300_000)}x": 1}`, false],
    ["a value padded with tabs after a name", `status\t${"\t".repeat(300_000)}x`, false],
    ["a status after such a run", `{"${"phase=".repeat(50_000)}x": 1, "status": "down"}`, true],
  ])("answers for %s of 300 kB", (_name, record, expected) => {
    expect(notableRecord(record)).toBe(expected);
  });
});

/** Header and row cells: names of status columns, values, and what apart them. */
const headerCell = fc.constantFrom("NAME", "STATUS", "READY", "Phase", "AGE", "X Y", "");
const rowCell = fc.constantFrom("api", "Running", "1/1", "0/1", "Pending", "up 2 days", "", "a b");
const apart = fc.constantFrom("  ", "   ", " ", "\t", "|", ",", " | ");

describe("notableRow", () => {
  it("reads a row's status cells as when its header is read again for each row", () => {
    const header = fc
      .tuple(fc.array(fc.tuple(headerCell, apart), { maxLength: 5 }), headerCell)
      .map(([cells, last]) => cells.map(([cell, gap]) => cell + gap).join("") + last);
    const row = fc
      .tuple(fc.array(fc.tuple(rowCell, apart), { maxLength: 6 }), rowCell)
      .map(([cells, last]) => cells.map(([cell, gap]) => cell + gap).join("") + last);
    fc.assert(
      fc.property(header, fc.array(row, { minLength: 1, maxLength: 4 }), (head, rows) => {
        for (const line of rows) expect(notableRow(head, line)).toBe(referenceRow(head, line));
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  it("reads every row of a table as it reads that row on its own", () => {
    const header = fc
      .tuple(fc.array(fc.tuple(headerCell, apart), { maxLength: 5 }), headerCell)
      .map(([cells, last]) => cells.map(([cell, gap]) => cell + gap).join("") + last);
    // Error words, some split over two rows (`timed` closing one, `out` opening the next).
    const cell = fc.oneof(
      rowCell,
      fc.constantFrom("timed", "out", "not", "found", "error", "timed ", " out", "\u2028"),
    );
    const row = fc
      .tuple(fc.array(fc.tuple(cell, apart), { maxLength: 6 }), cell)
      .map(([cells, last]) => cells.map(([text, gap]) => text + gap).join("") + last);
    fc.assert(
      fc.property(
        header,
        fc.array(row, { minLength: 1, maxLength: 8 }),
        fc.nat(2),
        fc.boolean(),
        (head, rows, skip, final) => {
          const lines = [head, ...rows];
          // A text's final newline starts no line: a last row left empty is not one of its rows.
          if (!final && lines.at(-1) === "") return;
          const first = Math.min(1 + skip, lines.length);
          const read = notableRows(
            lineStartsOf(lines.join("\n") + (final ? "\n" : "")),
            first,
            lines.length,
          );
          expect(read).toEqual(lines.slice(first).map((line) => referenceRow(head, line)));
        },
      ),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  it("reads a header of thousands of columns once a table, not once a row", () => {
    // Read again for each row, the header's 24,000 columns over 60,000 rows take about a minute.
    const header = `NAME  STATUS${"  X".repeat(24_000)}`;
    const rows = Array.from({ length: 60_000 }, (_, index) =>
      index === 59_000 ? "b     Pending" : "a     Running",
    );
    const found = documentRecords([header, ...rows], "table");
    expect(found?.count).toBe(60_000);
    expect(found?.notable.filter(Boolean).length).toBe(1);
    expect(found?.notable[59_000]).toBe(true);
  });
});
