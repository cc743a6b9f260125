import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { carriesMarker, contentHasher, markerIds } from "../../src/expand/markers.js";

/** The marker grammar (§6) as a pattern: the reference markerIds must agree with. */
const byPattern = (text: string) =>
  Array.from(text.matchAll(/<<cg:([A-Za-z0-9_-]{1,64})>>/g), (match) => match[1] as string);

describe("markerIds", () => {
  it.each([
    ["no marker", "plain text", []],
    ["one", "[masked] <<cg:abc123>> [hint]", ["abc123"]],
    ["two, repeated", "<<cg:a>> and <<cg:b>> and <<cg:a>>", ["a", "b", "a"]],
    ["empty id", "<<cg:>>", []],
    ["65 characters", `<<cg:${"x".repeat(65)}>>`, []],
    ["64 characters", `<<cg:${"x".repeat(64)}>>`, ["x".repeat(64)]],
    ["a false start before a marker", "<<cg:<<cg:ok>>", ["ok"]],
    ["unclosed", "<<cg:abc> and <<cg:def", []],
    ["other characters", "<<cg:a.b>> <<cg:a b>> <<cg:a_b-C9>>", ["a_b-C9"]],
  ])("%s", (_name, text, ids) => {
    expect(markerIds(text)).toEqual(ids);
    expect(carriesMarker(text)).toBe(ids.length > 0);
  });

  it("agrees with the marker pattern on any text", () => {
    const piece = fc.oneof(
      fc.constantFrom("<<cg:", ">>", "<", ">", "cg:", "-", "_", "x".repeat(70)),
      fc.stringMatching(/^[A-Za-z0-9_-]{0,70}$/),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join("");
        expect(markerIds(text)).toEqual(byPattern(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("contentHasher", () => {
  it.each([
    // RFC 4231 test case 2.
    ["Jefe", "what do ya want for nothing?", "5bdcc146bf60754e"],
    ["deployment-key-one-0001", "", "89677986d3ba2bfd"],
    ["deployment-key-two-0002", "", "d3304568febaf896"],
  ])("under %j hashes %j to %s (HMAC-SHA-256, 16 hex)", (key, text, id) => {
    expect(contentHasher(key)(text)).toBe(id);
  });
});
