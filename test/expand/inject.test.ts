import { describe, expect, it } from "vitest";
import { expandAbility, forcesToolChoice, injectExpandTool } from "../../src/expand/inject.js";
import { scanTopLevel } from "../../src/wire/json-scan.js";
import { wireShape } from "../../src/wire/registry.js";
import type { Provider } from "../../src/wire/types.js";

const OPENAI = wireShape("openai").expandTool;
const ANTHROPIC = wireShape("anthropic").expandTool;
const BASH = '{"type":"function","function":{"name":"bash"}}';
const PLAIN = '[{"role":"user","content":"hi"}]';

function inject(text: string, provider: Provider = "openai"): string {
  const scan = scanTopLevel(text);
  if (!scan) throw new Error("not an object");
  return injectExpandTool(text, wireShape(provider), scan.members, scan.close);
}

describe("injectExpandTool", () => {
  it.each<[string, string, Provider, string]>([
    [
      "after the last declared tool",
      `{"messages":${PLAIN},"tools":[${BASH}]}`,
      "openai",
      `{"messages":${PLAIN},"tools":[${BASH},${OPENAI}]}`,
    ],
    [
      "whitespace and formatting around the tools array stay",
      `{\n  "tools": [ ${BASH} ],\n  "messages": ${PLAIN}\n}`,
      "openai",
      `{\n  "tools": [ ${BASH} ,${OPENAI}],\n  "messages": ${PLAIN}\n}`,
    ],
    [
      "the Anthropic shape",
      `{"system":"s","messages":${PLAIN},"tools":[{"name":"Read"}]}`,
      "anthropic",
      `{"system":"s","messages":${PLAIN},"tools":[{"name":"Read"},${ANTHROPIC}]}`,
    ],
    [
      "an empty tools array",
      `{"messages":${PLAIN},"tools":[ ]}`,
      "openai",
      `{"messages":${PLAIN},"tools":[ ${OPENAI}]}`,
    ],
    [
      "no tools member",
      `{"model":"m","messages":${PLAIN}\n}`,
      "openai",
      `{"model":"m","messages":${PLAIN}\n,"tools":[${OPENAI}]}`,
    ],
    ["an empty object", "{}", "openai", `{"tools":[${OPENAI}]}`],
  ])("adds the tool: %s", (_, input, provider, output) => {
    const injected = inject(input, provider);
    expect(injected).toBe(output);
    expect(() => JSON.parse(injected)).not.toThrow();
  });
});

describe("expandAbility", () => {
  const bash = [{ type: "function", function: { name: "bash" } }];
  it.each([
    ["auto with tools", "auto", true, bash, undefined, { able: true, declared: false }],
    [
      "auto, tool_choice auto object",
      "auto",
      true,
      bash,
      { type: "auto" },
      { able: true, declared: false },
    ],
    ["always without tools", "always", true, undefined, undefined, { able: true, declared: false }],
    ["always with an empty array", "always", true, [], undefined, { able: true, declared: false }],
    [
      "the request declares the tool itself",
      "auto",
      true,
      [...bash, { name: "context_guru_expand" }],
      undefined,
      { able: true, declared: true },
    ],
    ["no store", "always", false, bash, undefined, { able: false, reason: "no_store" }],
    ["injection never", "never", true, bash, undefined, { able: false, reason: "inject_never" }],
    ["auto without tools", "auto", true, undefined, undefined, { able: false, reason: "no_tools" }],
    ["auto with an empty array", "auto", true, [], undefined, { able: false, reason: "no_tools" }],
    ["tools is not an array", "always", true, null, undefined, { able: false, reason: "no_tools" }],
    [
      "tool_choice required",
      "always",
      true,
      bash,
      "required",
      { able: false, reason: "tool_choice" },
    ],
    ["tool_choice none", "auto", true, bash, "none", { able: false, reason: "tool_choice" }],
    [
      "tool_choice forcing a tool",
      "auto",
      true,
      bash,
      { type: "tool", name: "bash" },
      { able: false, reason: "tool_choice" },
    ],
  ] as const)("%s", (_, mode, persists, tools, toolChoice, expected) => {
    expect(expandAbility(mode, persists, tools, toolChoice)).toEqual(expected);
  });

  it.each([
    [undefined, false],
    [null, false],
    ["auto", false],
    [{ type: "auto", disable_parallel_tool_use: true }, false],
    ["none", true],
    ["required", true],
    [{ type: "any" }, true],
    [{ type: "function", function: { name: "bash" } }, true],
  ])("forcesToolChoice(%j) = %j", (choice, forced) => {
    expect(forcesToolChoice(choice)).toBe(forced);
  });
});
