import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_HELD, WorkingArrays } from "../../src/text/working-arrays.js";

describe("WorkingArrays", () => {
  it("gives each array the length and fill asked, whatever the slot was left with", () => {
    const working = new WorkingArrays();
    const request = fc.record({
      slot: fc.integer({ min: 0, max: 2 }),
      length: fc.integer({ min: 0, max: 300 }),
      fill: fc.integer({ min: -1, max: 1 }),
      ints: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(request, { maxLength: 20 }), (requests) => {
        for (const { slot, length, fill, ints } of requests) {
          const array = ints ? working.ints(slot, length, fill) : working.bytes(slot, length);
          expect(array.length).toBe(length);
          expect(array.every((value) => value === (ints ? fill : 0))).toBe(true);
          // What the caller leaves behind.
          array.fill(7);
        }
      }),
    );
  });

  it("keeps an array up to MAX_HELD units for the next text, not a longer one", () => {
    const working = new WorkingArrays();
    const first = working.ints(0, 1000);
    expect(working.ints(0, 800).buffer).toBe(first.buffer);
    expect(working.bytes(0, 1000).buffer).toBe(working.bytes(0, 10).buffer);
    // Slots are apart.
    expect(working.ints(1, 10).buffer).not.toBe(first.buffer);
    const long = working.ints(0, MAX_HELD + 1);
    expect(working.ints(0, MAX_HELD + 1).buffer).not.toBe(long.buffer);
    expect(working.ints(0, 1000).buffer).toBe(first.buffer);
  });
});
