import { describe, expect, it } from "vitest";
import { contentHasher } from "../../src/expand/markers.js";
import { memoiseHash, rememberLongTexts } from "../../src/pipeline/hash-memo.js";
import { testIdOf } from "../support/hash-key.js";

function countingHasher() {
  const seen: string[] = [];
  const hash = (text: string) => {
    seen.push(text);
    return testIdOf(text);
  };
  return { seen, hash };
}

describe("memoiseHash", () => {
  it("gives the ids of the hash it wraps", () => {
    // RFC 4231 test case 2: HMAC-SHA-256 under "Jefe".
    const hash = memoiseHash(contentHasher("Jefe"));
    expect(hash("what do ya want for nothing?")).toBe("5bdcc146bf60754e");
    expect(hash("what do ya want for nothing?")).toBe("5bdcc146bf60754e");
  });

  it("hashes each text once while it is remembered", () => {
    const { seen, hash } = countingHasher();
    const memoised = memoiseHash(hash);
    for (const text of ["a", "b", "a", "a", "b", "c"]) memoised(text);
    expect(seen).toEqual(["a", "b", "c"]);
  });

  it.each([
    ["a text longer than the bound is never kept", ["x".repeat(40), "x".repeat(40)], 2],
    ["the least recently used text is evicted first", ["aaaa", "bbbb", "aaaa", "cccc", "bbbb"], 4],
  ])("%s", (_, texts, calls) => {
    const { seen, hash } = countingHasher();
    const memoised = memoiseHash(hash, 40);
    for (const text of texts) memoised(text);
    expect(seen).toHaveLength(calls);
  });
});

describe("rememberLongTexts", () => {
  it("hashes a long text once for as long as it lives, and leaves the rest to the shared memo", () => {
    const { seen, hash } = countingHasher();
    // A shared memo too small for the long text: it would hash it on every call.
    const shared = memoiseHash(hash, 40);
    const long = "x".repeat(100);
    const perRequest = rememberLongTexts(shared, 20);
    for (const text of [long, "a", long, "a", long]) perRequest(text);
    expect(seen).toEqual([long, "a"]);
    // The next request hashes it again: nothing is kept beyond the one that asked.
    rememberLongTexts(shared, 20)(long);
    expect(seen).toEqual([long, "a", long]);
  });
});
