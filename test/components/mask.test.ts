import { describe, expect, it } from "vitest";
import { mask } from "../../src/components/mask.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { peekOf } from "../../src/content/peek.js";
import { fakeContext, idOf, requestChanges, toolOutputs } from "../support/component-context.js";
import { agentToolTexts, hasCorpus, warnWithoutCorpus } from "../support/corpus.js";

const defaults = componentsSchema.parse({}).mask;
/** The placeholder of an output with no call: it names the output's first line (peekOf). */
const hid = (text: string) => `[older tool output masked: ${peekOf(toolOutputs([text])[0]!)}]`;
const long = (label: string) => `${label}: ${"lorem ipsum dolor sit amet ".repeat(40)}`;

describe("mask", () => {
  const texts = [long("a"), long("b"), "short", long("c"), long("d"), long("e")];

  it.each<[MarkerMode, (text: string) => string]>([
    ["full", (text) => `${hid(text)} <<cg:${idOf(text)}>> [full output: call context_guru_expand]`],
    ["summary", (text) => `${hid(text)} \u27eacg\u27eb`],
    ["off", (text) => hid(text)],
  ])("masks all but the newest keep_recent in %s mode", async (mode, expected) => {
    const context = fakeContext(toolOutputs(texts), { mode });
    const changes = await requestChanges(mask, defaults, context);
    expect(changes).toEqual([
      { index: 0, text: expected(texts[0]!) },
      { index: 1, text: expected(texts[1]!) },
    ]);
    if (mode === "full") {
      expect([...context.stashed.values()]).toEqual([texts[0], texts[1]]);
    }
  });

  it("writes the specification's example text, naming what it hid", async () => {
    const read = {
      text: long("x"),
      call: { name: "Read", input: { file_path: "/testbed/app.py", offset: 557, limit: 220 } },
    };
    const changes = await requestChanges(
      mask,
      defaults,
      fakeContext(toolOutputs([read, "", "", ""])),
    );
    expect(changes).toEqual([
      {
        index: 0,
        text: `[older tool output masked: Read /testbed/app.py lines 557-776] <<cg:${idOf(long("x"))}>> [full output: call context_guru_expand]`,
      },
    ]);
  });

  it.each([
    [0, [0, 1, 3, 4, 5]],
    [1, [0, 1, 3, 4]],
    [5, [0]],
    [6, []],
    [10, []],
  ])("with keep_recent %i masks %j", async (keepRecent, indexes) => {
    const changes = await requestChanges(
      mask,
      { ...defaults, keep_recent: keepRecent },
      fakeContext(toolOutputs(texts), { mode: "off" }),
    );
    expect(changes.map((change) => change.index)).toEqual(indexes);
  });

  it("leaves outputs the pipeline does not let it change", async () => {
    const outputs = toolOutputs([long("m"), long("s"), long("z"), "", "", ""]);
    const context = fakeContext(outputs, { mode: "off", fixed: new Set([0, 1]) });
    const changes = await requestChanges(mask, defaults, context);
    expect(changes.map((change) => change.index)).toEqual([2]);
  });

  it("declares that it reaches back (§4a)", () => {
    expect(mask.reachesBack).toBe(true);
  });

  it("respects min_tokens and handles no outputs", async () => {
    const tiny = toolOutputs(["one", "two", "three", "four", "five"]);
    expect(await requestChanges(mask, defaults, fakeContext(tiny))).toEqual([]);
    expect(
      await requestChanges(
        mask,
        { ...defaults, min_tokens: 0 },
        fakeContext(tiny, { mode: "off" }),
      ),
    ).toEqual([
      { index: 0, text: "[older tool output masked: one]" },
      { index: 1, text: "[older tool output masked: two]" },
    ]);
    expect(await requestChanges(mask, defaults, fakeContext([]))).toEqual([]);
  });

  it("is deterministic", async () => {
    const first = await requestChanges(mask, defaults, fakeContext(toolOutputs(texts)));
    expect(await requestChanges(mask, defaults, fakeContext(toolOutputs(texts)))).toEqual(first);
  });
});

warnWithoutCorpus("mask corpus test");
describe.skipIf(!hasCorpus)("mask on agent corpus requests", () => {
  it("masks only old, large outputs, and stashes each original under its marker", async () => {
    let masked = 0;
    for (const [file, texts] of agentToolTexts()) {
      const context = fakeContext(toolOutputs(texts));
      const changes = await requestChanges(mask, defaults, context);
      for (const change of changes) {
        expect(change.index, file).toBeLessThan(texts.length - defaults.keep_recent);
        const original = texts[change.index]!;
        expect(context.tokens(original)).toBeGreaterThanOrEqual(defaults.min_tokens);
        expect(context.stashed.get(idOf(original))).toBe(original);
        expect(context.tokens(change.text)).toBeLessThan(context.tokens(original));
      }
      masked += changes.length;
    }
    expect(masked).toBeGreaterThan(10);
  });
});
