import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HELD_BYTES, textOf, unitsOf } from "../../src/text/unit-buffer.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

describe("unit buffer", () => {
  it("gives each text exactly its own units, whatever the text before left in the buffer", () => {
    // One-byte and two-byte text, halves of surrogate pairs, longer and shorter one after another.
    const text = fc
      .array(fc.constantFrom("a", "\x1b", "\x9b", "é", "✓", "\ud83d", "\ude80", "\n"), {
        maxLength: 40,
      })
      .map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 6 }), (texts) => {
        for (const value of texts) {
          const units = unitsOf(value);
          expect(units.length).toBe(value.length);
          const codes = Array.from({ length: value.length }, (_, at) => value.charCodeAt(at));
          expect(Array.from(units)).toEqual(codes);
          expect(textOf(units, value.length)).toBe(value);
          expect(textOf(units, value.length >> 1)).toBe(value.slice(0, value.length >> 1));
          // What a reader leaves behind in the buffer.
          units.fill(0x41);
        }
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("holds one buffer for the next text up to HELD_BYTES, not a longer one", () => {
    const first = unitsOf("a".repeat(1000));
    expect(unitsOf("✓".repeat(300)).buffer).toBe(first.buffer);
    const long = unitsOf("a".repeat(HELD_BYTES + 1));
    expect(long.buffer).not.toBe(first.buffer);
    expect(unitsOf("a".repeat(HELD_BYTES + 1)).buffer).not.toBe(long.buffer);
    expect(unitsOf("a".repeat(10)).buffer).toBe(first.buffer);
  });
});
