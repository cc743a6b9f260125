import { describe, expect, it } from "vitest";
import { detectRun } from "../../src/components/test-runs.js";
import { toolOutputs } from "../support/component-context.js";

describe("detectRun over many outputs of one long command", () => {
  it("reads the command once, not once an output", () => {
    // Read again for each output, the 200 kB command of 2,000 outputs took minutes.
    const command = `pytest ${Array.from({ length: 20_000 }, (_, at) => `t/test_${at}.py`).join(" ")}`;
    const outputs = toolOutputs(
      Array.from({ length: 2_000 }, (_, at) => ({
        text: `${at} passed in 0.1s`,
        call: { input: { command } },
      })),
    );
    const runs = outputs.map((output) => detectRun(output));
    expect(new Set(runs.map((run) => run?.family))).toEqual(new Set(["pytest"]));
    expect(new Set(runs.map((run) => run?.target)).size).toBe(1);
    expect(runs.filter((run) => run?.failed === false)).toHaveLength(2_000);
  });

  it("remembers a text's runs by command in place, each command's run its own", () => {
    const outputs = Array.from({ length: 3_000 }, (_, at) => ({
      text: "collected 3 items\n3 passed in 0.1s",
      call: { input: { command: at % 2 === 0 ? `pytest t/test_${at}.py` : `cat f${at}.py` } },
    }));
    const families = toolOutputs(outputs).map((output) => detectRun(output)?.family);
    expect(families.filter((family) => family === "pytest")).toHaveLength(1_500);
    expect(families.filter((family) => family === undefined)).toHaveLength(1_500);
  });
});
