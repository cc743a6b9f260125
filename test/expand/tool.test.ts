import { describe, expect, it } from "vitest";
import { declaredToolName } from "../../src/expand/tool.js";
import { wireShape } from "../../src/wire/registry.js";

const DESCRIPTION =
  "Returns the full original content that was replaced by a <<cg:HASH>> marker in this conversation. Call it when you need the omitted content; pass the marker's HASH as id.";
const SCHEMA =
  '{"type":"object","properties":{"id":{"type":"string","description":"The HASH from a <<cg:HASH>> marker"}},"required":["id"]}';

describe("expand tool definitions", () => {
  it.each([
    [
      "openai",
      `{"type":"function","function":{"name":"context_guru_expand","description":"${DESCRIPTION}","parameters":${SCHEMA}}}`,
    ],
    [
      "anthropic",
      `{"name":"context_guru_expand","description":"${DESCRIPTION}","input_schema":${SCHEMA}}`,
    ],
    [
      "responses",
      `{"type":"function","name":"context_guru_expand","description":"${DESCRIPTION}","parameters":${SCHEMA}}`,
    ],
  ] as const)("%s definition is exactly this text", (provider, text) => {
    expect(wireShape(provider).expandTool).toBe(text);
  });

  it.each([
    [{ type: "function", function: { name: "bash" } }, "bash"],
    [{ name: "Read", input_schema: {} }, "Read"],
    [{ type: "web_search_20250305", name: "web_search" }, "web_search"],
    [{ type: "function" }, undefined],
    ["bash", undefined],
    [null, undefined],
  ])("declaredToolName(%j) = %j", (tool, name) => {
    expect(declaredToolName(tool)).toBe(name);
  });
});
