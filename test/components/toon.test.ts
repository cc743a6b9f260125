import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { decode } from "@toon-format/toon";
import { describe, expect, it } from "vitest";
import { toon } from "../../src/components/toon.js";
import { componentsSchema } from "../../src/config/schema.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";

const defaults = componentsSchema.parse({}).toon;
const noMinimum = { ...defaults, min_tokens: 0 };

function run(text: string, options = noMinimum): string | undefined {
  const outputs = toolOutputs([text]);
  return toon.reduce(outputs[0]!, options, fakeContext(outputs));
}

const users = Array.from({ length: 6 }, (_, id) => ({
  id: id + 1,
  name: `user-${id + 1}`,
  active: id % 2 === 0,
}));
const usersToon = [
  "[6]{id,name,active}:",
  "  1,user-1,true",
  "  2,user-2,false",
  "  3,user-3,true",
  "  4,user-4,false",
  "  5,user-5,true",
  "  6,user-6,false",
].join("\n");

describe("toon", () => {
  it.each([
    ["a root array", JSON.stringify(users, null, 2), usersToon],
    ["compact JSON", JSON.stringify(users), usersToon],
    ["an envelope", JSON.stringify({ total: 6, users }), `total: 6\nusers${usersToon}`],
    [
      "unicode and quoting",
      JSON.stringify([
        { city: "Zürich", note: "a, b" },
        { city: "東京", note: "" },
        { city: "São Paulo", note: "ok" },
        { city: "Kraków", note: "x" },
      ]),
      '[4]{city,note}:\n  Zürich,"a, b"\n  東京,""\n  São Paulo,ok\n  Kraków,x',
    ],
  ])("encodes %s", (_, text, expected) => {
    const result = run(text);
    expect(result).toBe(expected);
    expect(decode(result!)).toEqual(JSON.parse(text));
  });

  it.each([
    [
      "non-uniform keys",
      JSON.stringify([
        { a: 1, b: 2 },
        { a: 1, c: 2 },
        { a: 3, b: 4 },
      ]),
    ],
    [
      "different key order",
      JSON.stringify([
        { a: 1, b: 2 },
        { b: 3, a: 4 },
      ]),
    ],
    ["nested values", JSON.stringify([{ a: { x: 1 } }, { a: { x: 2 } }])],
    ["a single object", JSON.stringify([{ a: 1, b: 2 }])],
    ["an array of numbers", JSON.stringify([1, 2, 3, 4, 5, 6, 7, 8])],
    ["precision beyond 2^53", '[{"id":12345678901234567890},{"id":2},{"id":3}]'],
    ["repeated keys", '[{"a":1,"a":2},{"a":3},{"a":4}]'],
    ["invalid JSON", '[{"a":1},{"a":2},]'],
    ["plain text", "id name\n1 a\n2 b"],
    ["empty", ""],
    ["a tiny array that TOON does not shorten", '[{"a":1},{"a":2}]'],
  ])("leaves %s alone", (_, text) => {
    expect(run(text)).toBeUndefined();
  });

  it("respects min_tokens", () => {
    const small = JSON.stringify(users.slice(0, 2));
    expect(run(small, defaults)).toBeUndefined();
    expect(run(small, noMinimum)).toBe("[2]{id,name,active}:\n  1,user-1,true\n  2,user-2,false");
  });

  it("treats equal number spellings as the same value", () => {
    expect(run('[{"v":1.0,"w":"a"},{"v":1e3,"w":"b"},{"v":2.50,"w":"c"}]')).toBe(
      "[3]{v,w}:\n  1,a\n  1000,b\n  2.5,c",
    );
  });

  it("is deterministic", () => {
    const text = JSON.stringify(users);
    expect(run(text)).toBe(run(text));
  });
});

const corpus = resolve(import.meta.dirname, "../../../shared/corpus");
const reference = resolve(corpus, "reference/context.before.json");
if (!existsSync(reference)) console.warn(`toon corpus test skipped: ${reference} is absent`);

describe.skipIf(!existsSync(reference))("toon on the reference request", () => {
  it("turns the JSON array of users into a smaller TOON table", () => {
    const body = JSON.parse(readFileSync(reference, "utf8")) as {
      messages: { role: string; content: string }[];
    };
    const texts = body.messages.filter((message) => message.role === "tool").map((m) => m.content);
    const outputs = toolOutputs(texts);
    const context = fakeContext(outputs);
    const results = outputs.map((output) => toon.reduce(output, defaults, context));
    expect(results.slice(1)).toEqual([undefined, undefined, undefined]);
    const table = results[0] as string;
    expect(table.split("\n")[0]).toBe("[6]{id,name,role,active}:");
    expect(table.split("\n")[1]).toBe("  1,Alice,admin,true");
    expect(decode(table)).toEqual(JSON.parse(texts[0]!));
    expect(context.tokens(table)).toBeLessThan(context.tokens(texts[0]!) / 2);
  });
});
