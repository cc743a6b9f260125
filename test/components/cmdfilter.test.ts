import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cmdfilter } from "../../src/components/cmdfilter.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import type { ToolCall } from "../../src/wire/types.js";
import { fakeContext, idOf, toolOutputs } from "../support/component-context.js";

const defaults = componentsSchema.parse({}).cmdfilter;
const noMinimum = { ...defaults, min_tokens: 0 };

function run(
  text: string,
  call: Partial<ToolCall> | undefined,
  mode: MarkerMode = "full",
  options = noMinimum,
) {
  const outputs = toolOutputs([call ? { text, call } : { text }]);
  const context = fakeContext(outputs, { mode });
  return { result: cmdfilter.reduce(outputs[0]!, options, context) as string | undefined, context };
}

const status = 'On branch main\n  (use "git push" to publish your local commits)\n';
const bash = { input: { command: "git status" } };

describe("cmdfilter", () => {
  it.each<[MarkerMode, string]>([
    ["full", `On branch main\n… (1 git hint)\n<<cg:${idOf(status)}>>`],
    ["summary", "On branch main\n… (1 git hint)\n\u27eacg\u27eb"],
    ["off", "On branch main\n… (1 git hint)\n"],
  ])("marks in %s mode", (mode, expected) => {
    const { result, context } = run(status, bash, mode);
    expect(result).toBe(expected);
    expect([...context.stashed.values()]).toEqual(mode === "full" ? [status] : []);
  });

  it("appends the marker on a new line when the kept text has no final newline", () => {
    const text = 'On branch main\n  (use "git push" to publish your local commits)';
    expect(run(text, bash).result).toBe(`On branch main\n… (1 git hint)\n<<cg:${idOf(text)}>>`);
  });

  it.each<[string, Partial<ToolCall> | undefined]>([
    ["no paired call", undefined],
    ["a call without a command", { name: "Read", input: { file_path: "a.txt" } }],
    ["an OpenAI call with unparseable arguments", { name: "shell", input: undefined }],
    ["an unknown command", { input: { command: "cat notes.txt" } }],
  ])("leaves output alone with %s", (_, call) => {
    expect(run(status, call).result).toBeUndefined();
  });

  it("reads the command of an OpenAI function call (parsed arguments)", () => {
    const call = { name: "run_shell", input: { cmd: ["git", "status"] } };
    expect(run(status, call, "off").result).toBe("On branch main\n… (1 git hint)\n");
  });

  it("respects min_tokens", () => {
    expect(run(status, bash, "off", defaults).result).toBeUndefined();
    const hints = '  (use "git add <file>..." to update what will be committed)\n'.repeat(12);
    const large = `On branch main\n${hints}\tmodified:   src/app.ts\n`;
    expect(run(large, bash, "off", defaults).result).toBe(
      "On branch main\n… (12 git hints)\n\tmodified:   src/app.ts\n",
    );
  });
});

const corpus = resolve(import.meta.dirname, "../../../shared/corpus");
const searchOutput = resolve(corpus, "reference/search_output.json");
if (!existsSync(searchOutput))
  console.warn(`cmdfilter corpus tests skipped: ${searchOutput} is absent`);

describe.skipIf(!existsSync(searchOutput))("cmdfilter on real shell outputs", () => {
  const items = existsSync(searchOutput)
    ? (JSON.parse(readFileSync(searchOutput, "utf8")) as Array<{ cmd: string; out: string }>)
    : [];

  it("returns the search results and diffs among them whole", () => {
    let facts = 0;
    for (const { cmd, out } of items) {
      const outputs = toolOutputs([{ text: out, call: { input: { command: cmd } } }]);
      const contentClass = outputs[0]?.contentClass;
      if (contentClass !== "search" && contentClass !== "diff") continue;
      facts++;
      expect(run(out, { input: { command: cmd } }, "off", defaults).result).toBeUndefined();
    }
    expect(facts).toBeGreaterThan(100);
  });
});
