import { describe, expect, it } from "vitest";
import { mask } from "../../src/components/mask.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { peekOf } from "../../src/content/peek.js";
import { TokenCounter } from "../../src/pipeline/tokens.js";
import type { AgentText } from "../../src/wire/transcript.js";
import { fakeContext, idOf, requestChanges, toolOutputs } from "../support/component-context.js";
import { agentToolTexts, hasCorpus, warnWithoutCorpus } from "../support/corpus.js";

const defaults = componentsSchema.parse({}).mask;
/** Options that keep the newest three outputs and up to 8,000 tokens of older ones for need. */
const keepThree = { ...defaults, keep_recent: 3, working_set_tokens: 8000 };
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
    const changes = await requestChanges(mask, keepThree, context);
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
      keepThree,
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
    const changes = await requestChanges(mask, keepThree, context);
    expect(changes.map((change) => change.index)).toEqual([2]);
  });

  it("declares that it reaches back (§4a)", () => {
    expect(mask.reachesBack).toBe(true);
  });

  it("respects min_tokens and handles no outputs", async () => {
    const tiny = toolOutputs(["one", "two", "three", "four", "five"]);
    expect(await requestChanges(mask, keepThree, fakeContext(tiny))).toEqual([]);
    expect(
      await requestChanges(
        mask,
        { ...keepThree, min_tokens: 0 },
        fakeContext(tiny, { mode: "off" }),
      ),
    ).toEqual([
      { index: 0, text: "[older tool output masked: one]" },
      { index: 1, text: "[older tool output masked: two]" },
    ]);
    expect(await requestChanges(mask, keepThree, fakeContext([]))).toEqual([]);
  });

  it("is deterministic", async () => {
    const first = await requestChanges(mask, keepThree, fakeContext(toolOutputs(texts)));
    expect(await requestChanges(mask, keepThree, fakeContext(toolOutputs(texts)))).toEqual(first);
  });
});

type Item = { text: string; call: { name: string; input: unknown } };
/** A numbered view of lines first..last of `file`, as a Read shows it, distinct per file. */
const lines = (file: string, first: number, last: number) =>
  Array.from(
    { length: last - first + 1 },
    (_, at) => `${first + at}\t${file.replace(/\W/g, "_")}_${first + at} = compute(${at})`,
  ).join("\n");
const read = (file: string, offset: number, limit: number): Item => ({
  text: lines(file, offset, offset + limit - 1),
  call: { name: "Read", input: { file_path: file, offset, limit } },
});
const edit = (file: string): Item => ({
  text: `The file ${file} has been updated successfully.`,
  call: { name: "Edit", input: { file_path: file, old_string: "a = 1", new_string: "a = 2" } },
});
const bash = (command: string, text = long(command)): Item => ({
  text,
  call: { name: "Bash", input: { command } },
});
const A = "/repo/src/a.py";
const hidden = (item: Item) => `[older tool output masked: ${peekOf(toolOutputs([item])[0]!)}]`;
const maskedIn = async (
  items: readonly Item[],
  options: Partial<typeof keepThree> = {},
  agentText: readonly AgentText[] = [],
) => {
  const context = fakeContext(toolOutputs(items), { mode: "off", agentText });
  const changes = await requestChanges(mask, { ...keepThree, ...options }, context);
  for (const change of changes) expect(change.text).toBe(hidden(items[change.index]!));
  return changes.map((change) => change.index);
};

describe("mask hides by need, not by age (§5)", () => {
  // Outputs 0–2 are older than the newest three; 0 is a read of src/a.py.
  const old = [read(A, 1, 30), bash("ls -la /repo"), bash("git log -5")];
  it.each<[string, Item[], AgentText[], number[]]>([
    [
      "its file read again (other lines)",
      [bash("make"), read(A, 200, 12), bash("git diff")],
      [],
      [1, 2],
    ],
    ["its file edited", [edit(A), bash("make"), bash("git diff")], [], [1, 2]],
    [
      "its file searched by a grep over its directory",
      [bash("grep -rn compute /repo/src"), bash("make"), bash("git diff")],
      [],
      [1, 2],
    ],
    [
      "its file run by a command",
      [bash("make"), bash("python src/a.py --check"), bash("git diff")],
      [],
      [1, 2],
    ],
    [
      "its file named in the agent's words of the newest turns",
      [bash("make"), bash("git status"), bash("git diff")],
      [{ messageIndex: 7, text: "The failure comes from `a.py`, line 12." }],
      [1, 2],
    ],
    [
      "its file named only in words before the newest turns",
      [bash("make"), bash("git status"), bash("git diff")],
      [{ messageIndex: 5, text: "The failure comes from `a.py`, line 12." }],
      [0, 1, 2],
    ],
    [
      "a listing of its directory does not name it",
      [bash("ls /repo/src"), bash("make"), bash("git diff")],
      [],
      [0, 1, 2],
    ],
    [
      "nothing names it",
      [read("/repo/src/b.py", 1, 30), bash("make"), bash("git diff")],
      [],
      [0, 1, 2],
    ],
  ])("keeps an older output when %s", async (_label, recent, agentText, masked) => {
    expect(await maskedIn([...old, ...recent], {}, agentText)).toEqual(masked);
  });

  it.each<[string, number[]]>([
    ["results in one message (Anthropic)", [8, 8, 8]],
    ["consecutive tool messages (OpenAI, Responses)", [8, 9, 10]],
  ])(
    "keeps every output of the newest turn, its %s, whatever keep_recent",
    async (_label, last) => {
      const items = [bash("make"), bash("ls"), bash("df"), bash("du"), bash("ps"), bash("id")];
      const at = [2, 4, 6, ...last];
      const outputs = toolOutputs(items).map((output) => ({
        ...output,
        messageIndex: at[output.index] as number,
      }));
      const context = fakeContext(outputs, { mode: "off" });
      const masked = async (keepRecent: number) =>
        (await requestChanges(mask, { ...keepThree, keep_recent: keepRecent }, context)).map(
          (change) => change.index,
        );
      expect(await masked(1)).toEqual([0, 1, 2]);
      expect(await masked(4)).toEqual([0, 1]);
      expect(await masked(0)).toEqual([0, 1, 2, 3, 4, 5]);
    },
  );

  it("keeps the newest read of a file edited since, past keep_recent", async () => {
    const items = [read(A, 1, 30), bash("ls -la /repo"), edit(A), bash("make"), bash("git diff")];
    const context = fakeContext(toolOutputs([...items, bash("git status")]));
    expect(await requestChanges(mask, keepThree, context)).toEqual([
      {
        index: 1,
        text: `[older tool output masked: $ ls -la /repo] <<cg:${idOf(items[1]!.text)}>> [full output: call context_guru_expand]`,
      },
    ]);
  });

  it("keeps only the newest read of a file edited since, of reads of other lines", async () => {
    const items = [read(A, 1, 30), read(A, 100, 30), edit(A), bash("make"), bash("ls"), bash("df")];
    expect(await maskedIn(items)).toEqual([0]);
  });

  it("masks a file read superseded by a later read first, even while its file is edited", async () => {
    const items = [read(A, 1, 30), read(A, 1, 60), bash("ls"), edit(A), bash("make"), bash("ls")];
    expect(await maskedIn(items)).toEqual([0, 2]);
  });

  it("does not count a later read of a few of its lines as superseding a longer read", async () => {
    const items = [read(A, 1, 40), read(A, 5, 12), bash("ls"), edit(A), bash("make"), bash("ls")];
    expect(await maskedIn(items)).toEqual([2]);
  });

  it("masks a command superseded by the same command run again", async () => {
    const test = "/repo/tests/test_a.py";
    const runs = [bash(`pytest ${test}`, long("1 failed")), bash(`pytest -q ${test}`, long("ok"))];
    const items = [...runs, bash("ls"), edit(test), bash("make"), bash("git diff")];
    expect(await maskedIn(items)).toEqual([0, 2]);
  });

  it("holds the working set within working_set_tokens, from the newest back", async () => {
    const reads = [read(A, 1, 15), read(A, 16, 40), read(A, 56, 20)];
    const items = [...reads, edit(A), bash("make"), bash("git diff")];
    const counter = new TokenCounter();
    const [oldest, middle, newest] = reads.map((item) => counter.count(item.text)) as [
      number,
      number,
      number,
    ];
    expect(oldest).toBeLessThan(middle);
    const bound = (tokens: number) => maskedIn(items, { working_set_tokens: tokens });
    expect(await bound(oldest + middle + newest)).toEqual([]);
    expect(await bound(oldest + middle + newest - 1)).toEqual([0]);
    expect(await bound(middle + newest)).toEqual([0]);
    // The middle one no longer fits in what is left; the older, smaller one still does.
    expect(await bound(oldest + newest)).toEqual([1]);
    expect(await bound(newest - 1)).toEqual([1, 2]);
    expect(await bound(0)).toEqual([0, 1, 2]);
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
