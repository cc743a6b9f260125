import { describe, expect, it } from "vitest";
import { contentHasher } from "../../src/expand/markers.js";
import { memoiseHash } from "../../src/pipeline/hash-memo.js";

function countingHasher() {
  const seen: string[] = [];
  const hash = (text: string) => {
    seen.push(text);
    return contentHasher()(text);
  };
  return { seen, hash };
}

describe("memoiseHash", () => {
  it("gives the ids of the hash it wraps", () => {
    const hash = memoiseHash(contentHasher());
    expect(hash("abc")).toBe("ba7816bf8f01cfea");
    expect(hash("abc")).toBe("ba7816bf8f01cfea");
    expect(hash("")).toBe("e3b0c44298fc1c14");
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
