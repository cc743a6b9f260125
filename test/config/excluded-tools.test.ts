import { describe, expect, it } from "vitest";
import { DEFAULT_EXCLUDED_TOOLS, isExcluded } from "../../src/config/excluded-tools.js";
import { parseConfig } from "../../src/config/load.js";
import type { ComponentName, ConfigInput } from "../../src/config/schema.js";
import { ConfigError } from "../../src/errors/config-error.js";

describe("exclude_tools", () => {
  const defaults = parseConfig({});

  it("excludes the expand tool, sub-agents, task lists and the user's answers by default", () => {
    expect(defaults.exclude_tools).toEqual(DEFAULT_EXCLUDED_TOOLS);
    expect(defaults.components.mask.exclude_tools).toEqual([]);
  });

  it.each<[string, string | undefined, ConfigInput, ComponentName, boolean]>([
    ["the expand tool", "context_guru_expand", {}, "mask", true],
    ["a sub-agent's report, in any case", "task", {}, "dedup", true],
    ["a todo list", "TodoWrite", {}, "extract", true],
    ["an ordinary tool", "Bash", {}, "mask", false],
    ["an output with no call", undefined, {}, "mask", false],
    [
      "a tool listed for this component",
      "Read",
      { components: { mask: { exclude_tools: ["read"] } } },
      "mask",
      true,
    ],
    [
      "a tool listed for another component",
      "Read",
      { components: { mask: { exclude_tools: ["Read"] } } },
      "dedup",
      false,
    ],
    ["a tool listed globally", "WebFetch", { exclude_tools: ["webfetch"] }, "collapse", true],
    ["a default tool once the list is emptied", "Task", { exclude_tools: [] }, "mask", false],
  ])("%s → %s", (_, tool, input, component, expected) => {
    expect(isExcluded(tool, parseConfig(input), component)).toBe(expected);
  });

  it.each<[ConfigInput, string]>([
    [{ exclude_tools: "Task" } as unknown as ConfigInput, "exclude_tools"],
    [{ exclude_tools: [""] }, "exclude_tools.0"],
    [
      { components: { dedup: { exclude_tools: [3] } } } as unknown as ConfigInput,
      "components.dedup.exclude_tools.0",
    ],
  ])("rejects a bad list, naming the key", (input, key) => {
    const error = (() => {
      try {
        parseConfig(input);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe(key);
  });
});
