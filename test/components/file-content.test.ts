import { describe, expect, it } from "vitest";
import { extract } from "../../src/components/extract.js";
import { isFileContent } from "../../src/components/file-content.js";
import { linecap } from "../../src/components/linecap.js";
import { parseConfig } from "../../src/config/load.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";

const repeated = Array.from({ length: 60 }, (_, i) =>
  i % 2 ? "        return self._cache[key]  # hot path lookup" : `    def handler_${i}(self, key):`,
).join("\n");
const { components } = parseConfig({});

describe("isFileContent", () => {
  it.each([
    ["a Read tool", { name: "Read", input: { file_path: "/a.py" } }, true],
    ["a read_file tool", { name: "read_file", input: { path: "/a.py" } }, true],
    ["cat", { name: "Bash", input: { command: "cat src/app.py" } }, true],
    ["sed -n", { name: "Bash", input: { command: "sed -n '1,80p' src/app.py" } }, true],
    ["a filtered cat", { name: "Bash", input: { command: "cat app.log | grep ERROR" } }, false],
    ["a build", { name: "Bash", input: { command: "npm run build" } }, false],
  ])("%s → %s", (_, call, expected) => {
    const [output] = toolOutputs([{ text: repeated, call }]);
    expect(output && isFileContent(output)).toBe(expected);
  });

  it("a numbered listing without a call is file content", () => {
    const [output] = toolOutputs(["1\timport os\n2\timport sys\n3\t\n4\tprint(os.getcwd())"]);
    expect(output && isFileContent(output)).toBe(true);
  });
});

describe("line projections leave file content alone", () => {
  it.each([
    [
      "extract",
      () =>
        extract.reduce(
          toolOutputs([{ text: repeated, call: { name: "Read", input: {} } }])[0]!,
          components.extract,
          fakeContext([]),
        ),
    ],
    [
      "linecap",
      () =>
        linecap.reduce(
          toolOutputs([{ text: repeated, call: { name: "Read", input: {} } }])[0]!,
          components.linecap,
          fakeContext([]),
        ),
    ],
  ])("%s keeps a file read with repeated lines", (_, run) => {
    expect(run()).toBeUndefined();
  });

  it("but still projects the same text printed by a log-producing command", () => {
    const [output] = toolOutputs([
      { text: repeated, call: { name: "Bash", input: { command: "./run.sh" } } },
    ]);
    expect(linecap.reduce(output!, components.linecap, fakeContext([]))).toContain("(x30)");
  });
});
