import { describe, expect, it } from "vitest";
import { OutputMemo } from "../../src/pipeline/output-memo.js";
import { TokenCounter } from "../../src/pipeline/tokens.js";

describe("OutputMemo", () => {
  it("keeps results per component and call for one text", () => {
    const memo = new OutputMemo(10_000);
    memo.set("format\u0000full", "text", "", { text: "a", stashes: [] });
    memo.set("mask\u0000full", "text", "Bash\u0000ls", { text: "b", stashes: [] });
    expect(memo.get("format\u0000full", "text", "")?.text).toBe("a");
    expect(memo.get("mask\u0000full", "text", "Bash\u0000ls")?.text).toBe("b");
    expect(memo.get("mask\u0000full", "text", "")).toBeUndefined();
  });

  it("stays within its budget: the texts used longest ago go first", () => {
    const memo = new OutputMemo(5_000);
    const texts = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(1_000, "x"));
    for (const text of texts)
      memo.set("extract\u0000full", text, "", { text: "short", stashes: [] });
    // Newest first: reading an older entry brings it young, which may drop older ones still.
    const kept = [...texts]
      .reverse()
      .filter((text) => memo.get("extract\u0000full", text, "") !== undefined);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(4);
    expect(kept).toEqual(texts.slice(texts.length - kept.length).reverse());
  });

  it("does not keep a text larger than half its budget", () => {
    const memo = new OutputMemo(1_000);
    memo.set("t", "y".repeat(600), "", { text: undefined, stashes: [] });
    expect(memo.get("t", "y".repeat(600), "")).toBeUndefined();
  });
});

describe("TokenCounter", () => {
  it.each([
    ["hello world", 2, true],
    ["hello world", 3, false],
    ["ab", 7, false],
    ["", 0, true],
  ])("atLeast(%j, %i) = %s", (text, limit, expected) => {
    expect(new TokenCounter(1_000).atLeast(text, limit)).toBe(expected);
  });
});
