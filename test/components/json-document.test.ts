import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  opensJsonDocument,
  parsedExactly,
  parseJsonDocument,
} from "../../src/components/json-document.js";
import { containerMembers, joinTokens, jsonTokens } from "../../src/components/json-tokens.js";

describe("opensJsonDocument", () => {
  const parses = (text: string) => {
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === "object" && value !== null;
    } catch {
      return false;
    }
  };

  it("turns away only what JSON.parse would refuse as an object or array", () => {
    const text = fc
      .array(
        fc.constantFrom(
          "[",
          "]",
          "{",
          "}",
          '"a"',
          ":",
          ",",
          "1",
          "-2",
          "true",
          "null",
          " ",
          "\n",
          "\u00a0",
          "INFO",
          "x",
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (value) => {
        if (parses(value)) expect(opensJsonDocument(value)).toBe(true);
        expect(parseJsonDocument(value) !== undefined).toBe(parses(value));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ["[INFO] server started", false],
    ["[build 12] compiled", false],
    ["{x: 1}", false],
    ["[ ]", true],
    [' \n[\t"a"]', true],
    ['{ "a": 1 }', true],
    ["[-1]", true],
  ])("reads %j as opening a document: %s", (text, expected) => {
    expect(opensJsonDocument(text)).toBe(expected);
  });
});

describe("parsedExactly", () => {
  it.each([
    ['{"a":1}', true],
    ['{"a":1.0,"b":1e3,"c":-0.50,"d":1E-2}', true],
    ['{"a":9007199254740993}', false],
    ['{"a":12345678901234567890}', false],
    ['{"a":1e999}', false],
    ['{"a":0.1,"b":123456789012.5}', true],
    ['{"a":1,"a":2}', false],
    ['[{"a":1},{"a":2}]', true],
    ['{"__proto__":1,"b":{"c":[1,{"d":2}]}}', true],
  ])("%s → %s", (text, expected) => {
    const document = parseJsonDocument(text);
    expect(document).toBeDefined();
    expect(parsedExactly(document!)).toBe(expected);
  });
});

describe("jsonTokens", () => {
  it("keeps every token verbatim and drops only whitespace", () => {
    const text = '{ "a b" : [ 1.0 , -2e+3, true, null ], "c\\"": "x\\\\" }';
    expect(joinTokens(text, jsonTokens(text))).toBe('{"a b":[1.0,-2e+3,true,null],"c\\"":"x\\\\"}');
  });

  it("rejects an unterminated string", () => {
    expect(() => jsonTokens('"abc')).toThrow(SyntaxError);
  });

  it("lists the members of a container", () => {
    const text = '{"a":[1,{"x":[2]}],"b":"s"}';
    const tokens = jsonTokens(text);
    const { members, close } = containerMembers(text, tokens, 0);
    expect(
      members.map((member) => joinTokens(text, tokens.slice(member.first, member.end))),
    ).toEqual(['[1,{"x":[2]}]', '"s"']);
    expect(close).toBe(tokens.length - 1);
  });
});
