import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arrayElements,
  objectMembers,
  sliceText,
  topLevelMembers,
  valueEnd,
} from "../../scripts/e2e-agents/json-slices.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

describe("json slices", () => {
  const body = `{ "model" : "m", "messages": [ {"role":"user","content":"a \\"quoted\\" ]} text"} ,
    {"role" : "assistant", "content": [1.0, 1e3, 12345678901234567890, null, true]} ],
  "tools":[] , "stream":true}`;

  it("gives each top-level member's value as written", () => {
    const members = topLevelMembers(body);
    expect([...members.keys()]).toEqual(["model", "messages", "tools", "stream"]);
    expect(sliceText(body, members.get("model")!)).toBe('"m"');
    expect(sliceText(body, members.get("tools")!)).toBe("[]");
    expect(sliceText(body, members.get("stream")!)).toBe("true");
  });

  it("gives each array element's exact text, spacing and number spellings kept", () => {
    const messages = topLevelMembers(body).get("messages")!;
    expect(arrayElements(body, messages).map((element) => sliceText(body, element))).toEqual([
      '{"role":"user","content":"a \\"quoted\\" ]} text"}',
      '{"role" : "assistant", "content": [1.0, 1e3, 12345678901234567890, null, true]}',
    ]);
  });

  it("reads an object's members inside an element", () => {
    const text = '{"a": {"b" : [1, 2], "c":"x"}}';
    const inner = topLevelMembers(text).get("a")!;
    const members = objectMembers(text, inner);
    expect(sliceText(text, members.get("b")!)).toBe("[1, 2]");
    expect(sliceText(text, members.get("c")!)).toBe('"x"');
  });

  it("is empty for a value that is not an array or object", () => {
    const text = '{"a": "[1]"}';
    const a = topLevelMembers(text).get("a")!;
    expect(arrayElements(text, a)).toEqual([]);
    expect(objectMembers(text, a).size).toBe(0);
    expect(valueEnd(text, a.start)).toBe(a.end);
  });

  it("slices what JSON.parse reads, for any array of values however spaced", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.constantFrom(0, 1, 2), (values, indent) => {
        const text = JSON.stringify({ messages: values }, null, indent);
        const elements = arrayElements(text, topLevelMembers(text).get("messages")!);
        expect(elements.map((element) => JSON.parse(sliceText(text, element)))).toEqual(
          JSON.parse(text).messages,
        );
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
