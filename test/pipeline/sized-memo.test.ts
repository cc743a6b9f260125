import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SizedMemo } from "../../src/pipeline/sized-memo.js";

/** A memo whose size is the key's length, as the token and hash memos count it. */
const byLength = (maxSize: number) => new SizedMemo<number>(maxSize, (key) => key.length);

describe("SizedMemo", () => {
  it("gives back what was set, and the latest value of a key", () => {
    const memo = byLength(100);
    memo.set("a", 1);
    memo.set("b", 2);
    memo.set("a", 3);
    expect(memo.get("a")).toBe(3);
    expect(memo.get("b")).toBe(2);
    expect(memo.get("c")).toBeUndefined();
  });

  it("does not keep an entry larger than half its budget", () => {
    const memo = byLength(100);
    memo.set("x".repeat(51), 1);
    expect(memo.get("x".repeat(51))).toBeUndefined();
    memo.set("x".repeat(50), 1);
    expect(memo.get("x".repeat(50))).toBe(1);
  });

  it("keeps what is read every round while a stream of new keys passes through", () => {
    const memo = byLength(1_000);
    const hot = ["hot-one".padEnd(40, "."), "hot-two".padEnd(40, ".")];
    for (const key of hot) memo.set(key, 1);
    for (let round = 0; round < 200; round++) {
      for (const key of hot) expect(memo.get(key)).toBe(1);
      memo.set(`cold-${round}`.padEnd(40, "."), round);
    }
    expect(memo.get("cold-0".padEnd(40, "."))).toBeUndefined();
    expect(memo.get("cold-199".padEnd(40, "."))).toBe(199);
  });

  it("changes a held value in place, and drops it once it grows past half the budget", () => {
    const memo = new SizedMemo<string[]>(100, (key, words) => key.length + words.join("").length);
    expect(memo.update("a", () => expect.unreachable())).toBe(false);
    memo.set("a", ["x".repeat(20)]);
    memo.set("b", ["y".repeat(20)]);
    expect(memo.update("a", (words) => words.push("z".repeat(20)))).toBe(true);
    expect([memo.get("a")?.length, memo.get("b")?.length]).toEqual([2, 1]);
    expect(memo.update("a", (words) => words.push("z".repeat(10)))).toBe(true);
    expect([memo.get("a"), memo.get("b")?.length]).toEqual([undefined, 1]);
  });

  it("never holds more than its budget, whatever the order of sets and gets", () => {
    const operation = fc.tuple(fc.boolean(), fc.string({ maxLength: 60 }));
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 400 }), fc.array(operation), (budget, operations) => {
        const memo = new SizedMemo<string>(budget, (key, value) => key.length + value.length);
        const held = new Map<string, string>();
        for (const [isSet, key] of operations) {
          if (isSet) {
            memo.set(key, key);
            held.set(key, key);
          } else {
            const value = memo.get(key);
            if (value !== undefined) expect(value).toBe(held.get(key));
          }
          let total = 0;
          for (const [candidate, value] of held) {
            if (memo.get(candidate) !== undefined) total += candidate.length + value.length;
          }
          expect(total).toBeLessThanOrEqual(budget);
        }
      }),
    );
  });

  it("never holds more than its budget while values grow in place", () => {
    const operation = fc.tuple(
      fc.constantFrom("set", "get", "update"),
      fc.string({ maxLength: 8 }),
    );
    const sizeOf = (key: string, words: string[]) => key.length + words.join("").length;
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 400 }), fc.array(operation), (budget, operations) => {
        const memo = new SizedMemo<string[]>(budget, sizeOf);
        const held = new Map<string, string[]>();
        for (const [kind, key] of operations) {
          if (kind === "set") {
            const words = [key];
            memo.set(key, words);
            held.set(key, words);
          } else if (kind === "update") {
            memo.update(key, (words) => words.push(key.repeat(3)));
          } else {
            const words = memo.get(key);
            if (words !== undefined) expect(words).toBe(held.get(key));
          }
          let total = 0;
          for (const [candidate, words] of held) {
            if (memo.get(candidate) !== undefined) total += sizeOf(candidate, words);
          }
          expect(total).toBeLessThanOrEqual(budget);
        }
      }),
    );
  });
});
