import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Text } from "../../src/text/utf8.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/** The reading it replaces: a strict decoder, undefined where it throws. */
function decoded(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

describe("utf8Text", () => {
  it("reads any bytes as the strict decoder does: the text, or undefined when not UTF-8", () => {
    const ascii = fc.uint8Array({ max: 0x7f, maxLength: 64 });
    const text = fc.string({ unit: "binary", maxLength: 32 }).map((value) => Buffer.from(value));
    fc.assert(
      fc.property(fc.oneof(ascii, text, fc.uint8Array({ maxLength: 64 })), (bytes) => {
        expect(utf8Text(bytes)).toBe(decoded(bytes));
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  it.each([
    ["ASCII", Buffer.from('{"a":"b\\u00e9"}'), '{"a":"b\\u00e9"}'],
    ["a byte order mark, kept", Buffer.from([0xef, 0xbb, 0xbf, 0x41]), "\ufeffA"],
    ["two-byte characters", Buffer.from("é ✓ 🚀"), "é ✓ 🚀"],
    ["a lone continuation byte", Buffer.from([0x41, 0x80]), undefined],
    ["an encoded surrogate", Buffer.from([0xed, 0xa0, 0x80]), undefined],
  ])("reads %s", (_name, bytes, expected) => {
    expect(utf8Text(bytes)).toBe(expected);
  });

  it("reads the shared memory a body is received into, and a view into part of it", () => {
    const shared = new SharedArrayBuffer(8);
    const bytes = new Uint8Array(shared);
    bytes.set(Buffer.from("[1,2,3]x"));
    expect(utf8Text(shared as unknown as ArrayBuffer)).toBe("[1,2,3]x");
    expect(utf8Text(bytes.subarray(1, 6))).toBe("1,2,3");
    bytes[7] = 0xc3;
    expect(utf8Text(bytes)).toBeUndefined();
    expect(utf8Text(bytes.subarray(0, 7))).toBe("[1,2,3]");
  });

  it("reads a body of half a megabyte or more in a larger buffer as its own bytes, nothing after them", () => {
    const MIB = 1024 * 1024;
    // Around the lengths where the reading changes: 512 KiB, and what Node keeps off the heap.
    for (const length of [512 * 1024 - 1, 512 * 1024, 0xfbee9 - 1, 0xfbee9, MIB - 3]) {
      for (const room of [length, MIB]) {
        const shared = new SharedArrayBuffer(room + 16);
        const all = new Uint8Array(shared);
        // What an earlier, longer body left in the buffer: bytes that are not even ASCII.
        all.fill(0xff);
        const body = Buffer.alloc(length, "[0,1]\n");
        all.set(body, 16);
        const text = utf8Text(all.subarray(16, 16 + length));
        expect(text?.length).toBe(length);
        expect(text === body.toString("latin1")).toBe(true);
        expect(text?.includes("\u00ff")).toBe(false);
      }
    }
  });
});
