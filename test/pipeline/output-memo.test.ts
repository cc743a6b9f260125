import { describe, expect, it } from "vitest";
import { type MemoEntry, OutputMemo } from "../../src/pipeline/output-memo.js";
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

  it("keeps the results of one text for tens of thousands of calls", () => {
    // Each result for the text once copied and measured all the text's earlier ones: 20,000
    // calls took over a minute.
    const memo = new OutputMemo(32 * 1024 * 1024);
    const calls = Array.from({ length: 20_000 }, (_, i) => `log\u0000Bash\u0000echo ${i}`);
    for (const [i, call] of calls.entries()) {
      memo.set("cmdfilter\u0000full", "ok", call, { text: `${i}`, stashes: [] });
    }
    const texts = calls.map((call) => memo.get("cmdfilter\u0000full", "ok", call)?.text);
    expect(texts).toEqual(calls.map((_, i) => `${i}`));
  });

  it("stays within its budget as one text's results grow", () => {
    const budget = 100_000;
    const memo = new OutputMemo(budget);
    const texts = Array.from({ length: 4 }, (_, i) => `${i}`.padEnd(2_000, "o"));
    const written: [string, string, MemoEntry][] = [];
    for (let call = 0; call < 500; call++) {
      for (const text of texts) {
        const entry = {
          text: `${call}`.padEnd(20, "r"),
          stashes: [
            { key: `k${call}`, value: `${call}`.padEnd(50, "s") },
            { key: "t", value: text },
          ],
        };
        memo.set("extract\u0000full", text, `${call}`, entry);
        written.push([text, `${call}`, entry]);
      }
    }
    // As the memo counts them: each text held once, each result with its stashes but the text.
    const held = new Set<string>();
    let size = 0;
    for (const [text, call, entry] of written) {
      if (memo.get("extract\u0000full", text, call) !== entry) continue;
      if (!held.has(text)) size += text.length + 64;
      held.add(text);
      size += 20 + 64 + 50;
    }
    expect(size).toBeGreaterThan(budget / 4);
    expect(size).toBeLessThanOrEqual(budget);
    const last = written.at(-1) as [string, string, MemoEntry];
    expect(memo.get("extract\u0000full", last[0], last[1])).toBe(last[2]);
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
