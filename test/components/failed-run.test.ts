import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { failedRun } from "../../src/components/failed-run.js";
import { detectRun } from "../../src/components/test-runs.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { fakeContext, idOf, requestChanges, toolOutputs } from "../support/component-context.js";
import { corpusDir, hasCorpus, warnWithoutCorpus } from "../support/corpus.js";

const defaults = componentsSchema.parse({}).failed_run;
const noMinimum = { ...defaults, min_tokens: 0 };
const traceback =
  "tests/test_a.py:12: in test_add\n    assert add(1, 2) == 4\nE   assert 3 == 4\n".repeat(8);
const failing = `${traceback}===== 1 failed, 9 passed in 0.31s =====`;
const failingAgain = `${traceback}===== 1 failed, 9 passed in 0.29s =====`;
const passing = "collected 10 items\n\n===== 10 passed in 0.30s =====";
const pytest = (text: string) => ({ text, call: { input: { command: "pytest tests" } } });
const make = (text: string) => ({ text, call: { input: { command: "make build" } } });

describe("failed_run", () => {
  it.each<[MarkerMode, string]>([
    ["full", `[superseded by a later run] <<cg:${idOf(failing)}>>`],
    ["summary", "[superseded by a later run] \u27eacg\u27eb"],
    ["off", "[superseded by a later run]"],
  ])("supersedes an earlier failed run in %s mode", async (mode, expected) => {
    const context = fakeContext(toolOutputs([pytest(failing), "edited", pytest(passing)]), {
      mode,
    });
    expect(await requestChanges(failedRun, defaults, context)).toEqual([
      { index: 0, text: expected },
    ]);
    if (mode === "full") expect(context.stashed.get(idOf(failing))).toBe(failing);
  });

  it.each([
    ["the last run even when it failed", [pytest(failing), pytest(failingAgain)], [0]],
    ["a single failed run", [pytest(failing)], []],
    ["earlier passing runs", [pytest(passing), pytest(failing), pytest(passing)], [1]],
    ["runs of another family", [pytest(failing), make("make: *** [all] Error 1")], []],
    [
      "each family's last run",
      [pytest(failing), make("make: *** [x] Error 1"), pytest(failingAgain), make("done")],
      [0, 1],
    ],
    [
      "a run whose outcome is unknown",
      [pytest("collected 10 items\nrunning…"), pytest(passing)],
      [],
    ],
    [
      "non-run outputs",
      [{ text: failing, call: { input: { command: "cat log.txt" } } }, pytest(passing)],
      [],
    ],
    ["runs recognised by shape only", [failing, passing], [0]],
    ["no outputs", [], []],
  ])("keeps %s", async (_, items, indexes) => {
    const changes = await requestChanges(
      failedRun,
      noMinimum,
      fakeContext(toolOutputs(items), { mode: "off" }),
    );
    expect(changes.map((change) => change.index)).toEqual(indexes);
  });

  const wholeFile = (text: string) => ({
    text,
    call: { input: { command: "cd /testbed && python -m pytest testing/test_collection.py -q" } },
  });
  const singleTest = (text: string) => ({
    text,
    call: {
      input: {
        command:
          "cd /testbed && pytest -x --tb=short -p no:cacheprovider testing/test_collection.py::TestX::test_y",
      },
    },
  });
  const sameFileAgain = (text: string) => ({
    text,
    call: { input: { command: "cd /testbed && pytest -v --color=no testing/test_collection.py" } },
  });
  it.each<MarkerMode>(["full", "off"])(
    "never lets a narrower run supersede a broader one (%s mode)",
    async (mode) => {
      const context = fakeContext(toolOutputs([wholeFile(failing), singleTest(passing)]), { mode });
      expect(await requestChanges(failedRun, noMinimum, context)).toEqual([]);
    },
  );

  it.each<[MarkerMode, string]>([
    ["full", `[superseded by a later run] <<cg:${idOf(failing)}>>`],
    ["off", "[superseded by a later run]"],
  ])(
    "supersedes a run by a later run of the same target up to output flags (%s mode)",
    async (mode, text) => {
      const items = [wholeFile(failing), singleTest(failingAgain), sameFileAgain(passing)];
      const context = fakeContext(toolOutputs(items), { mode });
      expect(await requestChanges(failedRun, noMinimum, context)).toEqual([{ index: 0, text }]);
    },
  );

  it("counts is_error as a failure", async () => {
    const items = [{ ...make("Error 2"), isError: true }, make("built")];
    const changes = await requestChanges(
      failedRun,
      noMinimum,
      fakeContext(toolOutputs(items), { mode: "off" }),
    );
    expect(changes).toEqual([{ index: 0, text: "[superseded by a later run]" }]);
  });

  it("skips outputs that already carry a marker", async () => {
    const items = [pytest(`${failing}\n<<cg:0123456789abcdef>>`), pytest(failingAgain)];
    expect(await requestChanges(failedRun, noMinimum, fakeContext(toolOutputs(items)))).toEqual([]);
  });

  it("respects min_tokens", async () => {
    const small = "1 failed, 1 passed in 0.1s";
    const items = [pytest(small), pytest(failing), pytest(passing)];
    const changes = await requestChanges(
      failedRun,
      defaults,
      fakeContext(toolOutputs(items), { mode: "off" }),
    );
    expect(changes.map((change) => change.index)).toEqual([1]);
  });
});

warnWithoutCorpus("failed_run corpus test");
describe.skipIf(!hasCorpus)("test runs in the reference shell commands", () => {
  it("recognises the real test runs and nothing else", async () => {
    const file = resolve(corpusDir, "reference/search_output.json");
    const commands = JSON.parse(readFileSync(file, "utf8")) as { cmd: string; out: string }[];
    const runs = commands.flatMap(({ cmd, out }) => {
      const run = detectRun(toolOutputs([{ text: out, call: { input: { command: cmd } } }])[0]!);
      return run === undefined ? [] : [{ command: cmd.split(" ").slice(0, 2).join(" "), ...run }];
    });
    const target = (...words: string[]) => words.join("\u0000");
    expect(runs).toEqual([
      {
        command: "python -m",
        family: "pytest",
        target: target("pytest", "", "tests/test_domain_py.py::test_pyattribute"),
        failed: false,
      },
      {
        command: "python tests/runtests.py",
        family: "unittest",
        target: target("unittest", "", "queries", "lookup", "model_fields", "expressions", "basic"),
        failed: false,
      },
      {
        command: "python3 runtests.py",
        family: "unittest",
        target: target("unittest", "", "forms_tests"),
        failed: false,
      },
    ]);
  });
});
