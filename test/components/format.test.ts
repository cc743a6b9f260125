import { describe, expect, it } from "vitest";
import { format } from "../../src/components/format.js";
import { componentsSchema } from "../../src/config/schema.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";

const defaults = componentsSchema.parse({}).format;
const noMinimum = { ...defaults, min_tokens: 0 };

function run(text: string, options = noMinimum): string | undefined {
  const outputs = toolOutputs([text]);
  return format.reduce(outputs[0]!, options, fakeContext(outputs));
}

describe("format", () => {
  it.each([
    ["pretty object", '{\n  "a": 1,\n  "b": [1, 2]\n}', '{"a":1,"b":[1,2]}'],
    ["pretty array", '[\n  {"id": 1},\n  {"id": 2}\n]\n', '[{"id":1},{"id":2}]'],
    [
      "number spellings kept",
      '{ "a": 1.0, "b": 1e3, "c": 12345678901234567890 }',
      '{"a":1.0,"b":1e3,"c":12345678901234567890}',
    ],
    ["escapes kept", '{ "s": "\\u00e9 \\"q\\" \\\\ " }', '{"s":"\\u00e9 \\"q\\" \\\\ "}'],
    ["whitespace inside strings kept", '{ "s": "a  b\\n  c" }', '{"s":"a  b\\n  c"}'],
    ["unicode", '{ "名前": "テスト 🚀" }', '{"名前":"テスト 🚀"}'],
    ["CRLF indentation", '{\r\n  "a": true,\r\n  "b": null\r\n}', '{"a":true,"b":null}'],
    ["empty containers", '{ "a": [ ], "b": { } }', '{"a":[],"b":{}}'],
  ])("compacts %s", (_, text, expected) => {
    expect(run(text)).toBe(expected);
    expect(JSON.parse(expected)).toEqual(JSON.parse(text));
  });

  it.each([
    ["already compact", '{"a":1,"b":[1,2]}'],
    ["invalid JSON", '{ "a": 1, }'],
    ["two documents", '{ "a": 1 } { "b": 2 }'],
    ["a bare string", '  "text"  '],
    ["a bare number", " 42 "],
    ["plain text", "total 8\ndrwxr-xr-x 2 root root 4096 ."],
    ["empty", ""],
    ["JSON after prose", 'result: { "a": 1 }'],
  ])("leaves %s alone", (_, text) => {
    expect(run(text)).toBeUndefined();
  });

  it("respects min_tokens", () => {
    const text = '{\n  "a": 1\n}';
    expect(run(text, defaults)).toBeUndefined();
    const large = JSON.stringify(
      Array.from({ length: 40 }, (_, id) => ({ id, name: `user ${id}` })),
      null,
      2,
    );
    expect(run(large, defaults)).toBe(JSON.stringify(JSON.parse(large)));
  });

  it("is deterministic", () => {
    const text = '{\n  "b": 2,\n  "a": [1.50, "x"]\n}';
    expect(run(text)).toBe(run(text));
    expect(run(text)).toBe('{"b":2,"a":[1.50,"x"]}');
  });
});
