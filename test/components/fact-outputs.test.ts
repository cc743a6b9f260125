import { describe, expect, it } from "vitest";
import { extract } from "../../src/components/extract.js";
import { linecap } from "../../src/components/linecap.js";
import { parseConfig } from "../../src/config/load.js";
import type { ToolCall } from "../../src/wire/types.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";

/**
 * Line projections (`extract`, `linecap`) never thin the outputs that are facts the agent asked
 * for: file reads, diffs and search results. The same text printed by a log-producing command is
 * still theirs to reduce.
 */
const { components } = parseConfig({});
const repeated = Array.from({ length: 60 }, (_, i) =>
  i % 2 ? "        return self._cache[key]  # hot path lookup" : `    def handler_${i}(self, key):`,
).join("\n");
const bash = (command: string): Partial<ToolCall> => ({ input: { command } });

const projections = [
  [
    "extract",
    (output: ReturnType<typeof toolOutputs>[number]) =>
      extract.reduce(output, { ...components.extract, min_tokens: 0 }, fakeContext([])),
  ],
  [
    "linecap",
    (output: ReturnType<typeof toolOutputs>[number]) =>
      linecap.reduce(output, { ...components.linecap, min_tokens: 0 }, fakeContext([])),
  ],
] as const;

describe.each(projections)("%s on fact-class outputs", (_, reduce) => {
  it.each<[string, Partial<ToolCall>]>([
    ["a Read tool", { name: "Read", input: { file_path: "/a.py" } }],
    ["cat", bash("cat src/app.py")],
    ["sed -n", bash("sed -n '1,80p' src/app.py")],
    ["git diff", bash("git diff")],
    ["grep", bash("grep -rn handler src")],
    ["a Glob tool", { name: "Glob", input: { pattern: "**/*.py" } }],
  ])("leaves %s alone", (_, call) => {
    expect(reduce(toolOutputs([{ text: repeated, call }])[0]!)).toBeUndefined();
  });

  it("still reduces the same text printed by a log-producing command", () => {
    expect(reduce(toolOutputs([{ text: repeated, call: bash("./run.sh") }])[0]!)).toBeDefined();
  });
});
