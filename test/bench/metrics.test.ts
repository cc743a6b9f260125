import { describe, expect, it } from "vitest";
import {
  cacheFriendliness,
  finalCheckpoints,
  messageTexts,
  tokenSavings,
} from "../../bench/metrics.js";

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

describe("cacheFriendliness", () => {
  it.each([
    ["no sessions", [], { transitions: 0, average: null, pooled: null, prefix: null }],
    [
      "one turn only",
      [[["a", "b"]]],
      { transitions: 0, average: null, pooled: null, prefix: null },
    ],
    [
      "append-only turns",
      [
        [
          ["s", "u"],
          ["s", "u", "x"],
          ["s", "u", "x", "y"],
        ],
      ],
      { transitions: 2, average: 1, pooled: 1, prefix: 1 },
    ],
    [
      // a→b: 2 of 2 kept; b→c: 3 of 4 kept (message 1 rewritten); x→y: 0 of 1 kept.
      "a rewritten message and a replaced session",
      [
        [
          ["a", "b"],
          ["a", "b", "c", "d"],
          ["a", "B", "c", "d", "e", "f"],
        ],
        [["x"], ["y", "z"]],
      ],
      { transitions: 3, average: (1 + 0.75 + 0) / 3, pooled: 5 / 7, prefix: (1 + 0.25 + 0) / 3 },
    ],
  ])("%s", (_, sessions, expected) => {
    const result = cacheFriendliness(sessions);
    expect(result.transitions).toBe(expected.transitions);
    for (const key of ["average", "pooled", "prefix"] as const) {
      if (expected[key] === null) expect(result[key]).toBeNull();
      else expect(result[key]).toBeCloseTo(expected[key] as number, 12);
    }
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
