import { describe, expect, it } from "vitest";
import { heapEstimate, overBudget } from "../../src/compaction/job-cost.js";
import { parseJsonDocument } from "../../src/components/json-document.js";
import { JSON_DOCUMENT_MAX_CHARS } from "../../src/content/json-limit.js";

/**
 * The heap a job is estimated to need (§10): escaped quotes cost a value each only in strings
 * short enough to be parsed as a JSON document; a multi-megabyte JSON-lines log is one string.
 */
const body = (output: string) =>
  JSON.stringify({
    model: "m",
    messages: [{ role: "tool", tool_call_id: "c", content: output }],
  });

/** `lines` JSON records, one a line. */
const jsonLines = (lines: number) =>
  Array.from({ length: lines }, (_, index) =>
    JSON.stringify({ level: "info", msg: "served", path: `/api/${index}`, ms: index % 97 }),
  ).join("\n");

/** The same text with its quotes spelled as apostrophes: no escaped quote left, same length. */
const unquoted = (output: string) => output.replaceAll('"', "'");

const estimates = (text: string) => [
  heapEstimate("compact", text),
  heapEstimate("compact", new TextEncoder().encode(text)),
];

describe("heapEstimate", () => {
  it("counts the escaped quotes of a long string as characters, not values", () => {
    const log = jsonLines(40_000);
    expect(log.length).toBeGreaterThan((6 * JSON_DOCUMENT_MAX_CHARS) / 3);
    const long = log.repeat(3);
    // Byte for byte the same length (an escaped quote is two bytes, an apostrophe one): the
    // difference is per byte only.
    const [quoted, quotedBytes] = estimates(body(long));
    const [plain] = estimates(body(unquoted(long)));
    expect(quotedBytes).toBe(quoted);
    expect(quoted).toBe((plain as number) + 10 * (body(long).length - body(unquoted(long)).length));
  });

  it("counts the escaped quotes of a string that may be parsed as a JSON document as values", () => {
    const short = jsonLines(200);
    const escapedQuotes = short.split('"').length - 1;
    const [quoted] = estimates(body(short));
    const [plain] = estimates(body(unquoted(short)));
    const perByte = 10 * escapedQuotes;
    expect(quoted).toBe((plain as number) + perByte + 48 * escapedQuotes);
  });

  it("reads the same from bytes as from text, and a string ending in a backslash as closed", () => {
    const text = '{"model":"m","messages":[{"role":"user","content":"a\\\\"},{"x":"\\"q\\""}]}';
    expect(JSON.parse(text)).toBeTruthy();
    const [fromText, fromBytes] = estimates(text);
    expect(fromText).toBe(fromBytes);
    // 18 quotes of values and keys, and 2 escaped ones in a short string.
    expect(fromText).toBe(32 * 1024 * 1024 + 10 * text.length + 48 * (18 + 2));
  });
});

describe("overBudget", () => {
  /** `bytes` as a body whose every byte read is counted. */
  const counted = (bytes: Uint8Array) => {
    const reads = { count: 0 };
    const input = new Proxy(bytes, {
      get(target, name) {
        if (typeof name === "string" && /^\d+$/.test(name)) reads.count++;
        const value = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return { input, reads };
  };
  const bytes = new TextEncoder().encode(body(jsonLines(2_000)));

  it("does not read a body that fits even were every byte a value quote", () => {
    const { input, reads } = counted(bytes);
    const roomy = 32 * 1024 * 1024 + (10 + 48) * bytes.length;
    expect(overBudget("compact", input, roomy)).toBeUndefined();
    expect(reads.count).toBe(0);
  });

  it("reads a body that may not fit, and answers its estimate only when it does not", () => {
    const estimate = heapEstimate("compact", bytes);
    const fits = counted(bytes);
    expect(overBudget("compact", fits.input, estimate)).toBeUndefined();
    expect(fits.reads.count).toBe(bytes.length);
    expect(overBudget("compact", bytes, estimate - 1)).toBe(estimate);
  });
});

describe("a JSON document longer than the pipeline parses", () => {
  it("is not read as one", () => {
    const records = (count: number) =>
      JSON.stringify(Array.from({ length: count }, (_, id) => ({ id, name: `item-${id}` })));
    const small = records(1000);
    expect(parseJsonDocument(small)?.value).toEqual(JSON.parse(small));
    const large = records(40_000);
    expect(large.length).toBeGreaterThan(JSON_DOCUMENT_MAX_CHARS);
    expect(parseJsonDocument(large)).toBeUndefined();
  });
});
