import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { itemsOfJson, type JsonSpan } from "../../src/content/json-outline.js";
import { notableItems, notableRecord } from "../../src/content/notable.js";
import { documentRecords } from "../../src/content/records.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/** The reference: each item's own text read on its own. */
function eachNotable(text: string, items: readonly JsonSpan[]): boolean[] {
  return items.map((item) => notableRecord(text.slice(item.start, item.end)));
}

/** The items of `text`'s array, as the outline finds them. */
function itemsOf(text: string): readonly JsonSpan[] {
  const array = itemsOfJson(text, 1);
  if (array === undefined) throw new Error(`not outlined: ${JSON.stringify(text)}`);
  return array.items;
}

const names = fc.constantFrom("status", "Phase", "STATE", "health", "healthy", "ready", "result");
const values = fc.constantFrom(
  "Running",
  "ready",
  "True",
  "1/1 Running",
  "Up 2 hours",
  "Up 2 hours (unhealthy)",
  "Exited (0) 3 minutes ago",
  "up timed",
  "up not",
  "none",
  "Pending",
  "down",
  "CrashLoopBackOff",
  "0/1",
  "connection refused",
  "",
  " ",
);
/** Pieces of a string's text: fields, their parts, error words and what ends a field. */
const pieces = fc.oneof(
  fc
    .tuple(names, fc.constantFrom(":", "=", ": ", " = ", "':'"), values)
    .map((parts) => parts.join("")),
  names,
  values,
  fc.constantFrom("error", "timed", "out", "not", "found", "fail"),
  fc.constantFrom(" ", "\t", "\n", "\r", "\r\n", ",", "}", "]", "{", "[", "'", ":", "="),
);
/** A string as the outline reads one: any text without a quote or backslash, line ends too. */
const stringItem = fc.array(pieces, { maxLength: 6 }).map((parts) => `"${parts.join("")}"`);
/** Numbers, literals and a word spelled only with their letters. */
const bareItem = fc.constantFrom("0", "-1.5e3", "true", "null", "state", "true false");
/** Within a nested array, a field spelled with them too. */
const nestedItem = fc.oneof(stringItem, bareItem, fc.constant("result:true"));
/** Whitespace around the punctuation of a document, minified to pretty with CRLF. */
const space = fc.constantFrom("", " ", "\n  ", "\r\n\t", " \n ");

const member = fc
  .tuple(
    fc.oneof(names, fc.constantFrom("id", "msg", "labels")),
    space,
    space,
    fc.oneof(stringItem, bareItem, fc.array(nestedItem, { maxLength: 3 })),
  )
  .map(([key, before, after, value]) =>
    typeof value === "string"
      ? `"${key}"${before}:${after}${value}`
      : `"${key}":${after}[${value.join(`,${before}`)}]`,
  );
const objectItem = fc
  .tuple(fc.array(member, { maxLength: 4 }), space)
  .map(([members, around]) => `{${around}${members.join(`,${around}`)}${around}}`);
const arrayItem = fc
  .tuple(fc.array(nestedItem, { maxLength: 3 }), space)
  .map(([items, around]) => `[${around}${items.join(`${around},`)}${around}]`);
const item = fc.oneof(objectItem, stringItem, bareItem, arrayItem);

/** A root array or an envelope's, its items apart by a comma and whitespace. */
const document = fc
  .tuple(
    fc.array(fc.tuple(item, space, space), { minLength: 1, maxLength: 8 }),
    space,
    space,
    fc.boolean(),
  )
  .map(([items, open, close, envelope]) => {
    const body = items
      .map(([text, before, after], at) => (at === 0 ? text : `${before},${after}${text}`))
      .join("");
    const array = `[${open}${body}${close}]`;
    return envelope ? `{"total": ${items.length},${open}"items": ${array}${close}}` : array;
  });

describe("notable items of a JSON array", () => {
  it("are those whose own text is notable, item by item", () => {
    fc.assert(
      fc.property(document, (text) => {
        const items = itemsOf(text);
        expect(notableItems(text, items)).toEqual(eachNotable(text, items));
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("match JSON.stringify's documents too, minified and pretty", () => {
    const pod = fc.record({
      id: fc.string({ maxLength: 8 }),
      phase: values,
      status: fc.oneof(values, fc.constant(null)),
      note: fc.oneof(fc.constant("ok"), fc.constant("timed out"), fc.string({ maxLength: 12 })),
      tags: fc.array(fc.oneof(values, fc.integer()), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(pod, values, fc.integer()), { minLength: 1, maxLength: 10 }),
        fc.constantFrom(undefined, 2, "\t"),
        (pods, indent) => {
          const text = JSON.stringify({ kind: "List", items: pods }, null, indent);
          const items = itemsOf(text);
          expect(notableItems(text, items)).toEqual(eachNotable(text, items));
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it("reads a long normal field once, not again for each field within it", () => {
    const text = `[{"msg": "${"state: up ".repeat(10_000)}", "a": 1}, {"phase": "Failed"}]`;
    const items = itemsOf(text);
    // Characters the patterns read: from where each search starts to where it stops (the end
    // of what it found, or of its text). Read again from each of its 10,000 fields, the value
    // would be read some fifty thousand times over; once, it is read by a few: the search for
    // names and error words, where the value stops, whether it is normal.
    let read = 0;
    const exec = RegExp.prototype.exec;
    const spy = vi.spyOn(RegExp.prototype, "exec").mockImplementation(function (
      this: RegExp,
      input: string,
    ) {
      const from = this.global || this.sticky ? this.lastIndex : 0;
      const found = exec.call(this, input);
      read += (found === null ? input.length : found.index + found[0].length) - from;
      return found;
    });
    try {
      expect(notableItems(text, items)).toEqual([false, true]);
    } finally {
      spy.mockRestore();
    }
    expect(read).toBeLessThan(5 * text.length);
  });

  it.each([
    ['[{"status":"down"}, {"status":"ok"}]', [true, false]],
    ['["state=bad",\n"state=ok"]', [true, false]],
    // The last item ends at the bracket, or at a space before it, as at the end of its own text.
    ['[1, "status: down"]', [false, true]],
    ['[1, "status: down" ]', [false, true]],
    ['["status: down" , 1]', [true, false]],
    // `true]` is the value of the field within the first item.
    ["[[state:true], 1]", [true, false]],
    ['["timed", "out"]', [false, false]],
    ['["timed out", 1]', [true, false]],
    // An error word within a normal value, or going on past it at the line end.
    ['["phase: Up 2 hours (unhealthy)", "phase: Up 2 hours"]', [true, false]],
    ['["state: up timed\nout", "state: up"]', [true, false]],
    // A field within a normal value is not read: the next field starts after it.
    ['["phase: up state: pending", "state: pending"]', [false, true]],
    // An error word just past a normal field belongs to the next item.
    ['["phase: Running","failed"]', [false, true]],
    ['{"total": 2, "items": [\n  {"phase": "Running"},\n  {"phase": "Failed"}\n]}', [false, true]],
  ])("in %j are %j", (text, expected) => {
    const items = itemsOf(text);
    expect(eachNotable(text, items)).toEqual(expected);
    expect(notableItems(text, items)).toEqual(expected);
  });
});

describe("notable records of a YAML document", () => {
  // Lines of sequences, document streams and top-level keys, with error words that a record's
  // last line ends and the next one's first line completes (`timed` + `out:`).
  const line = fc.constantFrom(
    "items:",
    "- name: web",
    "  - nested",
    "  phase: Running",
    "  status: Pending",
    "  state: 'ok'",
    '  ready: "true"',
    "  note: timed",
    "  note: not",
    "---",
    "a: timed",
    "b: not",
    "out: 1",
    "found: 2",
    "kind: List",
    "msg: connection refused",
    "",
    "   ",
  );
  it("are those whose own lines are notable, record by record", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 2, maxLength: 24 }), (lines) => {
        const found = documentRecords(lines, "yaml");
        if (found === undefined) return;
        const each = found.starts
          .slice(0, -1)
          .map((start, at) => notableRecord(lines.slice(start, found.starts[at + 1]).join("\n")));
        expect(found.notable).toEqual(each);
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  it("are the same read from the text the lines were split from", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 2, maxLength: 24 }), fc.boolean(), (lines, final) => {
        const text = `${lines.join("\n")}${final ? "\n" : ""}`;
        // A text's final newline starts no line: a last line left empty is not one of its lines.
        if (!final && lines.at(-1) === "") return;
        const found = documentRecords(text, "yaml");
        if (found === undefined) return;
        const each = found.starts
          .slice(0, -1)
          .map((start, at) => notableRecord(lines.slice(start, found.starts[at + 1]).join("\n")));
        expect(found.notable).toEqual(each);
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  it("reads a record an error word of the next one completes on its own", () => {
    const lines = ["a: timed", "out: 1", "b: fine"];
    expect(documentRecords(lines, "yaml")?.notable).toEqual([false, false, false]);
    expect(documentRecords(["a: timed out", "b: fine"], "yaml")?.notable).toEqual([true, false]);
  });
});
