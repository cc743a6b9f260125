import { describe, expect, it } from "vitest";
import { dedup } from "../../src/components/dedup.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { fakeContext, idOf, requestChanges, toolOutputs } from "../support/component-context.js";
import { agentToolTexts, hasCorpus, warnWithoutCorpus } from "../support/corpus.js";

const defaults = componentsSchema.parse({}).dedup;
const long = (label: string) => `${label}: ${"the quick brown fox jumps ".repeat(40)}`;

describe("dedup", () => {
  const texts = [long("a"), long("b"), long("a"), "tiny", long("a"), "tiny", long("b")];

  it.each<[MarkerMode, string]>([
    ["full", `[identical to an earlier tool output] <<cg:${idOf(long("a"))}>>`],
    ["summary", "[identical to an earlier tool output] \u27eacg\u27eb"],
    ["off", "[identical to an earlier tool output]"],
  ])("replaces later copies in %s mode", async (mode, forA) => {
    const context = fakeContext(toolOutputs(texts), { mode });
    const forB = forA.replace(idOf(long("a")), idOf(long("b")));
    expect(await requestChanges(dedup, defaults, context)).toEqual([
      { index: 2, text: forA, refersTo: 0 },
      { index: 4, text: forA, refersTo: 0 },
      { index: 6, text: forB, refersTo: 1 },
    ]);
  });

  it("replaces small copies when min_tokens allows", async () => {
    const context = fakeContext(toolOutputs(texts), { mode: "off" });
    const changes = await requestChanges(dedup, { ...defaults, min_tokens: 0 }, context);
    expect(changes.map((change) => change.index)).toEqual([2, 4, 5, 6]);
  });

  it.each([
    ["no duplicates", [long("a"), long("b")]],
    ["near duplicates", [long("a"), `${long("a")} `, long("a").toUpperCase()]],
    ["no outputs", []],
    ["empty outputs", ["", ""]],
  ])("changes nothing with %s", async (_, items) => {
    expect(await requestChanges(dedup, defaults, fakeContext(toolOutputs(items)))).toEqual([]);
  });

  it("changes only outputs it may change, and points only to readable copies", async () => {
    const outputs = toolOutputs([long("a"), long("a"), long("c"), long("c"), long("c")]);
    const context = fakeContext(outputs, {
      mode: "off",
      fixed: new Set([1]),
      offloaded: new Set([2]),
    });
    // 1 may not change; 2 was reduced, so 3 is the first readable copy of c and 4 points to it.
    expect(await requestChanges(dedup, defaults, context)).toEqual([
      { index: 4, text: "[identical to an earlier tool output]", refersTo: 3 },
    ]);
  });

  it("handles CRLF and unicode content exactly", async () => {
    const crlf = `${long("ü 🚀")}\r\n`.repeat(2);
    const lf = crlf.replaceAll("\r\n", "\n");
    const context = fakeContext(toolOutputs([crlf, lf, crlf]), { mode: "off" });
    expect(await requestChanges(dedup, defaults, context)).toEqual([
      { index: 2, text: "[identical to an earlier tool output]", refersTo: 0 },
    ]);
  });
});

warnWithoutCorpus("dedup corpus test");
describe.skipIf(!hasCorpus)("dedup on agent corpus requests", () => {
  // The corpus repeats only short edit confirmations (~30 tokens), so the threshold is lowered.
  const options = { ...defaults, min_tokens: 20 };

  it("replaces only exact repeats of an earlier kept output", async () => {
    let replacedTotal = 0;
    for (const [file, texts] of agentToolTexts()) {
      const context = fakeContext(toolOutputs(texts));
      const changes = await requestChanges(dedup, options, context);
      const replaced = new Set(changes.map((change) => change.index));
      for (const change of changes) {
        const original = texts[change.index]!;
        const firstCopy = texts.indexOf(original);
        expect(firstCopy, file).toBeLessThan(change.index);
        expect(replaced.has(firstCopy), file).toBe(false);
        expect(change.text).toBe(`[identical to an earlier tool output] <<cg:${idOf(original)}>>`);
      }
      const distinct = new Set(texts).size;
      const small = texts.filter(
        (text, index) =>
          texts.indexOf(text) !== index && !context.atLeastTokens(text, options.min_tokens),
      ).length;
      expect(changes.length + small, file).toBe(texts.length - distinct);
      replacedTotal += changes.length;
    }
    expect(replacedTotal).toBeGreaterThan(0);
  });
});
