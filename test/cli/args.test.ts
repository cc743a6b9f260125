import { describe, expect, it } from "vitest";
import { environmentNames } from "../../scripts/config-table.js";
import { parseCommandLine, usage } from "../../src/cli/args.js";

describe("the server's command line", () => {
  it.each<[string[], ReturnType<typeof parseCommandLine>]>([
    [[], { kind: "serve", configFile: undefined }],
    [
      ["--config", "configs/llmd-clean.yaml"],
      { kind: "serve", configFile: "configs/llmd-clean.yaml" },
    ],
    [["--config=configs/summary.yaml"], { kind: "serve", configFile: "configs/summary.yaml" }],
    [["-c", "a.yaml"], { kind: "serve", configFile: "a.yaml" }],
    [["configs/llmd-clean.yaml"], { kind: "serve", configFile: "configs/llmd-clean.yaml" }],
    [["--help"], { kind: "help" }],
    [["-h"], { kind: "help" }],
    [["configs/default.yaml", "--help"], { kind: "help" }],
    [
      ["a.yaml", "b.yaml"],
      { kind: "error", message: "expected at most one config file, got 2: a.yaml b.yaml" },
    ],
    [
      ["--config", "a.yaml", "b.yaml"],
      { kind: "error", message: "the config file is given twice (--config a.yaml and b.yaml)" },
    ],
  ])("%j → %j", (args, command) => {
    expect(parseCommandLine(args)).toEqual(command);
  });

  it.each([["--port", "4000"], ["--config"], ["-x"]])(
    "%j is an error with a message",
    (...args) => {
      const command = parseCommandLine(args);
      expect(command.kind).toBe("error");
      expect(command.kind === "error" && command.message).toMatch(/option|argument/i);
    },
  );

  it("the usage names every environment override", () => {
    const listed = usage.slice(usage.indexOf("Environment overrides"));
    expect(environmentNames.filter((name) => !new RegExp(`\\b${name}\\b`).test(listed))).toEqual(
      [],
    );
  });
});
