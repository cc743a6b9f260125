import { describe, expect, it } from "vitest";
import { forcesToolChoice, type InjectOptions, injectExpandTool } from "../../src/expand/inject.js";
import { expandToolJson } from "../../src/expand/tool.js";

const OPENAI = expandToolJson("openai");
const ANTHROPIC = expandToolJson("anthropic");
const BASH = '{"type":"function","function":{"name":"bash"}}';
const MARKED = '[{"role":"tool","content":"[masked] <<cg:abcdef0123456789>>"}]';
const ESCAPED = '[{"role":"tool","content":"\\u003c\\u003Ccg:abcdef0123456789\\u003e\\u003E"}]';
const PLAIN = '[{"role":"user","content":"hi"}]';

const auto: InjectOptions = { provider: "openai", mode: "auto", persists: true };
const always: InjectOptions = { ...auto, mode: "always" };

describe("injectExpandTool", () => {
  it.each([
    [
      "auto: tools declared and a marker in messages",
      `{"messages":${MARKED},"tools":[${BASH}]}`,
      auto,
      `{"messages":${MARKED},"tools":[${BASH},${OPENAI}]}`,
    ],
    [
      "auto: whitespace and formatting around the tools array stay",
      `{\n  "tools": [ ${BASH} ],\n  "messages": ${MARKED}\n}`,
      auto,
      `{\n  "tools": [ ${BASH} ,${OPENAI}],\n  "messages": ${MARKED}\n}`,
    ],
    [
      "auto: escaped marker in messages",
      `{"messages":${ESCAPED},"tools":[${BASH}]}`,
      auto,
      `{"messages":${ESCAPED},"tools":[${BASH},${OPENAI}]}`,
    ],
    [
      "auto: marker in an Anthropic system value",
      `{"system":"see <<cg:abc>>","messages":${PLAIN},"tools":[{"name":"Read"}]}`,
      { ...auto, provider: "anthropic" } as InjectOptions,
      `{"system":"see <<cg:abc>>","messages":${PLAIN},"tools":[{"name":"Read"},${ANTHROPIC}]}`,
    ],
    [
      "auto: tool_choice auto object",
      `{"messages":${MARKED},"tools":[${BASH}],"tool_choice":{"type":"auto"}}`,
      auto,
      `{"messages":${MARKED},"tools":[${BASH},${OPENAI}],"tool_choice":{"type":"auto"}}`,
    ],
    [
      "always: empty tools array",
      `{"messages":${PLAIN},"tools":[ ]}`,
      always,
      `{"messages":${PLAIN},"tools":[ ${OPENAI}]}`,
    ],
    [
      "always: no tools member",
      `{"model":"m","messages":${PLAIN}\n}`,
      always,
      `{"model":"m","messages":${PLAIN}\n,"tools":[${OPENAI}]}`,
    ],
    ["always: empty object", "{}", always, `{"tools":[${OPENAI}]}`],
  ])("%s", (_, input, options, output) => {
    const injected = injectExpandTool(input, options);
    expect(injected).toBe(output);
    expect(() => JSON.parse(injected)).not.toThrow();
    expect(injectExpandTool(injected, options)).toBe(injected);
  });

  it.each([
    ["never", `{"messages":${MARKED},"tools":[${BASH}]}`, { ...auto, mode: "never" }],
    [
      "store does not persist",
      `{"messages":${MARKED},"tools":[${BASH}]}`,
      { ...always, persists: false },
    ],
    ["auto without tools", `{"messages":${MARKED}}`, auto],
    ["auto with an empty tools array", `{"messages":${MARKED},"tools":[]}`, auto],
    ["auto without a marker", `{"messages":${PLAIN},"tools":[${BASH}]}`, auto],
    [
      "auto: a marker only inside tools",
      `{"messages":${PLAIN},"tools":[{"name":"x","description":"<<cg:HASH>>"}]}`,
      auto,
    ],
    [
      "forced tool_choice required",
      `{"messages":${MARKED},"tools":[${BASH}],"tool_choice":"required"}`,
      always,
    ],
    [
      "forced tool_choice none",
      `{"messages":${MARKED},"tools":[${BASH}],"tool_choice":"none"}`,
      always,
    ],
    [
      "forced tool_choice to a tool",
      `{"messages":${MARKED},"tools":[${BASH}],"tool_choice":{"type":"tool","name":"bash"}}`,
      always,
    ],
    [
      "already present",
      `{"messages":${MARKED},"tools":[${BASH},{"name":"context_guru_expand"}]}`,
      auto,
    ],
    ["tools is not an array", `{"messages":${MARKED},"tools":null}`, always],
    ["not an object", `[${BASH}]`, always],
    ["not JSON", "{oops", always],
  ] as const)("leaves the text unchanged: %s", (_, input, options) => {
    expect(injectExpandTool(input, options)).toBe(input);
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
