import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { tokenBounds, visibleLines } from "../../src/pipeline/token-bounds.js";
import { countO200k, EXACT_CHARS, TokenCounter } from "../../src/pipeline/tokens.js";
import { logOutput } from "../support/bodies.js";

/**
 * Decisions about a huge output from its size and bounds of its tokens (§4, §10 big bodies):
 * the bounds hold, and the exact tokenizer is given only the kept text and a few windows.
 */
const PARTS = [
  "error",
  " ",
  "\n",
  "\n\n",
  "é",
  "😀",
  "42",
  ";\n",
  "\t",
  "\u00a0",
  "=",
  "ab",
  "\r\n",
];

/** A build log of about `chars` UTF-16 units, an error every 500 lines. */
function buildLog(chars: number): string {
  const lines: string[] = [];
  for (let size = 0, index = 0; size < chars; index++) {
    const line =
      index % 500 === 499
        ? `src/module-${index}.c:12:3: error: expected ';' before '}' token`
        : `gcc -O2 -c src/module-${index % 997}.c -o build/module-${index % 997}.o (${index % 89}ms)`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** A TokenCounter over the real tokenizer that records the length of every text it counts. */
function countingCounter(): { counter: TokenCounter; counted: number[] } {
  const counted: number[] = [];
  const counter = new TokenCounter(64 * 1024 * 1024, (text) => {
    counted.push(text.length);
    return countO200k(text);
  });
  return { counter, counted };
}

describe("tokenBounds", () => {
  it("holds the exact count between its lower and upper bound", () => {
    const texts = fc
      .array(fc.oneof(fc.constantFrom(...PARTS), fc.string({ maxLength: 30 })), { maxLength: 300 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(texts, (text) => {
        const { lower, upper } = tokenBounds(text);
        const exact = countTokens(text);
        expect(lower).toBeLessThanOrEqual(exact);
        expect(exact).toBeLessThanOrEqual(upper);
      }),
      { numRuns: 400 },
    );
    for (const text of [logOutput(300), buildLog(20_000), "a;\nb;\n\u00a0\n\n c\n"]) {
      const { lower, upper } = tokenBounds(text);
      expect(lower).toBeLessThanOrEqual(countTokens(text));
      expect(countTokens(text)).toBeLessThanOrEqual(upper);
    }
  });

  it("counts lines with a visible character, not blank ones, and stops where asked", () => {
    expect(visibleLines("a\n\n \t\n\u00a0\nb;\n")).toBe(2);
    expect(visibleLines("x\n".repeat(1000), 10)).toBe(10);
    expect(tokenBounds("é\n")).toEqual({ lower: 1, upper: 3 });
  });
});

describe("TokenCounter on a huge output", () => {
  const huge = buildLog(3 * 1024 * 1024);

  it("decides a collapse budget from the size without the exact tokenizer", () => {
    const { counter, counted } = countingCounter();
    expect(counter.atLeast(huge, 2001)).toBe(true);
    expect(counter.atLeast(huge, 300)).toBe(true);
    expect(counted).toEqual([]);
  });

  it("guards a collapse by counting only the kept text and a few windows", () => {
    const { counter, counted } = countingCounter();
    const lines = huge.split("\n");
    const kept = [...lines.slice(0, 20), "\u2026 (omitted)", ...lines.slice(-20)].join("\n");
    const result = counter.compare(huge, kept);
    expect(result.fewer).toBe(true);
    expect(result.after).toBe(countO200k(kept));
    expect(counted.filter((length) => length > 1024)).toEqual([kept.length]);
    // The windows and the kept text: linear work bounded by a constant, whatever the size.
    expect(counted.reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(
      16 * 1024 + kept.length,
    );
    expect(result.before).toBe(counter.estimate(huge));
  });

  it("estimates within 5 % of the exact count, and counts exactly below the threshold", () => {
    const { counter } = countingCounter();
    const exact = countO200k(huge);
    const estimate = counter.estimate(huge);
    expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.05);
    const small = huge.slice(0, EXACT_CHARS);
    expect(counter.estimate(small)).toBe(countO200k(small));
  });

  it("counts both sides exactly when the bounds cannot decide (a reformat of a huge output)", () => {
    const { counter, counted } = countingCounter();
    const original = buildLog(4 * EXACT_CHARS);
    const reformatted = original.replaceAll(" -o build/module-", " -o ");
    const result = counter.compare(original, reformatted);
    expect(result).toEqual({
      before: countO200k(original),
      after: countO200k(reformatted),
      fewer: true,
    });
    expect(counted).toEqual([original.length, reformatted.length]);
  });
});
