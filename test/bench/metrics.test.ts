import { describe, expect, it } from "vitest";
import { finalCheckpoints, messageTexts, tokenSavings } from "../../bench/metrics.js";

describe("tokenSavings", () => {
  it.each([
    [[], { before: 0, after: 0, saved: 0, share: null }],
    [[{ before: 100, after: 100 }], { before: 100, after: 100, saved: 0, share: 0 }],
    [
      [
        { before: 100, after: 40 },
        { before: 300, after: 60 },
      ],
      { before: 400, after: 100, saved: 300, share: 0.75 },
    ],
  ])("counts %j together", (counts, expected) => {
    expect(tokenSavings(counts)).toEqual(expected);
  });
});

describe("finalCheckpoints", () => {
  it("keeps the last body of each session, in the order sessions first appear", () => {
    const bodies = [
      { session: "a", name: "a1" },
      { session: "b", name: "b1" },
      { session: "a", name: "a2" },
      { session: "c", name: "c1" },
      { session: "b", name: "b2" },
    ];
    expect(finalCheckpoints(bodies).map((body) => body.name)).toEqual(["a2", "b2", "c1"]);
  });
});

describe("messageTexts", () => {
  it("returns each message's exact bytes", () => {
    const body =
      '{"model":"m", "messages": [ {"role":"user","content":"caf\\u00e9"} ,\n{"n":1.0} ],"x":1}';
    expect(messageTexts(body)).toEqual(['{"role":"user","content":"caf\\u00e9"}', '{"n":1.0}']);
  });

  it.each(["[1]", '{"model":"m"}'])("throws for %s", (body) => {
    expect(() => messageTexts(body)).toThrow("body has no messages array");
  });
});
