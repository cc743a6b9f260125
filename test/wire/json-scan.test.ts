import { describe, expect, it } from "vitest";
import { scanBody, scanTopLevel } from "../../src/wire/json-scan.js";

const slice = (text: string, span: { start: number; end: number } | undefined) =>
  span ? text.slice(span.start, span.end) : undefined;

describe("scanBody", () => {
  const text = `{ "model" : "m", "messages" : [
    {"role":"tool","content":"a \\"quoted\\" \\\\ value"},
    {"role":"user","content":[{"type":"text","text":"hi"},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"inner"}]},{"type":"tool_result","content":"flat"}]},
    {"role":"assistant","content":null,"tool_calls":[{"id":"x","function":{"name":"n","arguments":"{\\"content\\":\\"no\\"}"}}]}
  ], "tools": [ ] , "n": 1.0 }`;
  const scan = scanBody(text);

  it("records message element spans", () => {
    expect(scan?.messages).toHaveLength(3);
    for (const span of scan?.messages ?? []) {
      expect(() => JSON.parse(text.slice(span.start, span.end))).not.toThrow();
    }
  });

  it.each([
    ["0/content", '"a \\"quoted\\" \\\\ value"'],
    ["1/content/0/text", '"hi"'],
    ["1/content/1/content/0/text", '"inner"'],
    ["1/content/2/content", '"flat"'],
  ])("locates %s", (path, literal) => {
    expect(slice(text, scan?.strings.get(path))).toBe(literal);
  });

  it("records content strings and the agent's call arguments, nothing else", () => {
    expect([...(scan?.strings.keys() ?? [])]).toEqual([
      "0/content",
      "1/content/0/text",
      "1/content/1/content/0/text",
      "1/content/2/content",
      "2/tool_calls/0/function/arguments",
    ]);
    expect(slice(text, scan?.strings.get("2/tool_calls/0/function/arguments"))).toBe(
      '"{\\"content\\":\\"no\\"}"',
    );
  });

  it("locates an Anthropic tool_use input as the span of its object", () => {
    const body = `{"messages":[{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"u","name":"Edit","input": {"path" : "a", "n":1.0} }]}]}`;
    const found = scanBody(body);
    expect(slice(body, found?.strings.get("0/content/1/input"))).toBe('{"path" : "a", "n":1.0}');
    expect(found?.ambiguous).toBe(false);
  });

  it("locates a Responses function_call's arguments and a custom_tool_call's input", () => {
    const body = `{"input":[{"type":"function_call","call_id":"c","name":"shell","arguments":"{\\"cmd\\":\\"ls\\"}"},{"type":"custom_tool_call","call_id":"d","name":"apply_patch","input":"*** Begin Patch"}]}`;
    const found = scanBody(body, { conversation: "input", itemOutput: true });
    expect(slice(body, found?.strings.get("0/arguments"))).toBe('"{\\"cmd\\":\\"ls\\"}"');
    expect(slice(body, found?.strings.get("1/input"))).toBe('"*** Begin Patch"');
  });

  it("records top-level member values and the closing brace", () => {
    expect(slice(text, scan?.members.get("model"))).toBe('"m"');
    expect(slice(text, scan?.members.get("tools"))).toBe("[ ]");
    expect(slice(text, scan?.members.get("n"))).toBe("1.0");
    expect(text[scan?.close ?? 0]).toBe("}");
    expect(scan?.ambiguous).toBe(false);
  });

  it.each([
    ['{"messages":[],"messages":[{"role":"tool","content":"x"}]}'],
    ['{"messages":[{"role":"tool","content":"x","content":"y"}]}'],
    ['{"messages":[{"content":[{"type":"text","text":"a","text":"b"}]}]}'],
    ['{"messages":[], "m\\u0065ssages":[]}'],
    ['{"messages":[{"tool_calls":[{"function":{"arguments":"{}","arguments":"{}"}}]}]}'],
    ['{"messages":[{"tool_calls":[],"tool_c\\u0061lls":[]}]}'],
    ['{"messages":[{"content":[{"type":"tool_use","input":{},"input":{}}]}]}'],
  ])("flags repeated keys as ambiguous: %s", (body) => {
    expect(scanBody(body)?.ambiguous).toBe(true);
  });

  it.each([["[]"], ['"text"'], ["12"], ["null"]])("returns undefined for non-object %s", (body) => {
    expect(scanBody(body)).toBeUndefined();
  });

  it("scanTopLevel reports members only", () => {
    const text = '{"a":{"b":[1,2,"]"]},"c":"}"} ';
    const top = scanTopLevel(text);
    expect([...(top?.members.keys() ?? [])]).toEqual(["a", "c"]);
    expect(top?.close).toBe(text.length - 2);
  });
});
