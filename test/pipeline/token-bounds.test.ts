import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/esm/encodingParams/constants";
import { describe, expect, it } from "vitest";
import { minimumPieces, tokenBounds } from "../../src/pipeline/token-bounds.js";
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
  "abc123def",
  "1234567",
  "it's",
  "x'LL",
  "src/module-12.c",
  "²",
  "٣٤",
  "e\u0301",
  "ß",
  "(",
  "-",
  "/",
  "\n/",
  ";\r\n//x",
  "A",
];

/** The pieces the o200k pre-tokenizer cuts `text` into. */
const pieces = (text: string) => text.match(O200K_TOKEN_SPLIT_REGEX)?.length ?? 0;

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

  it("never counts more pieces than the pre-tokenizer cuts, and stops where asked", () => {
    const texts = fc
      .array(fc.oneof(fc.constantFrom(...PARTS), fc.string({ maxLength: 12 })), { maxLength: 200 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(texts, (text) => {
        expect(minimumPieces(text)).toBeLessThanOrEqual(pieces(text));
      }),
      { numRuns: 2000 },
    );
    for (const text of [logOutput(300), buildLog(20_000)]) {
      expect(minimumPieces(text)).toBeLessThanOrEqual(pieces(text));
    }
    // Close to the pieces of a build log: a bound that decides, not only one that holds.
    const log = buildLog(20_000);
    expect(minimumPieces(log)).toBeGreaterThan(0.8 * pieces(log));
    expect(minimumPieces("src/module-12.c 1234567 it's x²3")).toBe(
      ["src", "/module", "-", "12", ".c", "123", "456", "7", "it's", "x²"].length,
    );
    expect(minimumPieces("x\n".repeat(1000), 10)).toBe(10);
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

  it("guards a reduction that keeps more bytes than the original has lines by counting only the kept text", () => {
    const { counter, counted } = countingCounter();
    // Test-runner lines: many pieces a line, so the kept text's bytes exceed the original's lines.
    const suite = "/home/runner/work/app/app/packages/core/src/__tests__";
    const log = Array.from(
      { length: 40_000 },
      (_, line) => `PASS ${suite}/case-${line}.test.ts (${line % 9}.12 s)\n  ✓ keeps ${line} items`,
    ).join("\n");
    const kept = log
      .split("\n")
      .filter((_, line) => line % 3 === 0)
      .join("\n");
    // Neither its lines nor its pieces outnumber the kept text's bytes: only an exact count decides.
    expect(Buffer.byteLength(kept)).toBeGreaterThan(minimumPieces(log));
    const result = counter.compare(log, kept);
    expect(result.fewer).toBe(true);
    expect(result.after).toBe(countO200k(kept));
    expect(counted.filter((length) => length > 1024)).toEqual([kept.length]);
  });

  it("estimates within 5 % of the exact count, and counts exactly below the threshold", () => {
    const { counter } = countingCounter();
    const exact = countO200k(huge);
    const estimate = counter.estimate(huge);
    expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.05);
    const small = huge.slice(0, EXACT_CHARS);
    expect(counter.estimate(small)).toBe(countO200k(small));
  });

  it("estimates a huge output of base64 within 5 %, counting 4 Ki characters of it", () => {
    const { counter, counted } = countingCounter();
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 8;
    };
    const blob = Buffer.from(Uint8Array.from({ length: 600_000 }, () => random() & 0xff)).toString(
      "base64",
    );
    const exact = countO200k(blob);
    const estimate = counter.estimate(blob);
    expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.05);
    // About a microsecond a character to count: the windows are what an estimate costs.
    expect(counted.reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(4 * 1024);
  });

  it("estimates a huge output once, however often one request asks", () => {
    const { counter, counted } = countingCounter();
    const estimate = counter.estimate(huge);
    const windows = counted.length;
    expect(windows).toBeGreaterThan(0);
    // The request's count, the guard of its collapse and the written-back total.
    const kept = huge.slice(0, 2000);
    expect(counter.compare(huge, kept).before).toBe(estimate);
    expect(counter.estimate(huge)).toBe(estimate);
    expect(counted.slice(windows)).toEqual([kept.length]);
    // An estimate is never taken for an exact count.
    expect(counter.count(huge)).toBe(countO200k(huge));
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
    // The kept text first: had the original's lower bound decided, it would not be counted.
    expect(counted).toEqual([reformatted.length, original.length]);
  });
});
