import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonStringValues } from "../../src/wire/json-values.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

const values = (text: string) =>
  jsonStringValues(text).map(({ start, end }) => JSON.parse(text.slice(start, end)) as string);

/** Every string value of a parsed JSON value, depth first, keys left out. */
function expected(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(expected);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(expected);
  return [];
}

describe("jsonStringValues", () => {
  it.each([
    ['{"a":"x","b":["y",{"c":"z"}],"d":1}', ["x", "y", "z"]],
    ['{ "k" : "v" ,\n "k2":"v2" }', ["v", "v2"]],
    ['{"a\\"b":"c\\",\\"d"}', ['c","d']],
    ['["a",{"b":"c"},"d"]', ["a", "c", "d"]],
    ['{"a":{},"b":[],"c":"x"}', ["x"]],
    ['"alone"', ["alone"]],
    ["{}", []],
  ])("%s", (text, found) => {
    expect(values(text)).toEqual(found);
  });

  it("finds every value and no key of any JSON document, as written", () => {
    // Objects list integer-like keys first, whatever their place in the text: compared as sets.
    const sorted = (list: string[]) => [...list].sort();
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined);
        expect(sorted(values(text))).toEqual(sorted(expected(JSON.parse(text))));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
