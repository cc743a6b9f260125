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

  it("does not record strings outside content paths", () => {
    expect([...(scan?.strings.keys() ?? [])]).toEqual([
      "0/content",
      "1/content/0/text",
      "1/content/1/content/0/text",
      "1/content/2/content",
    ]);
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
