import { describe, expect, it } from "vitest";
import { storeSchema } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";
import { piecedEntries, pieceKey, readPieced, splitValue } from "../../src/store/pieces.js";

const store = (overrides: Record<string, unknown> = {}) =>
  createStore(storeSchema.parse({ max_entry_bytes: 32, ...overrides }));

describe("originals kept in pieces", () => {
  it("cuts by UTF-8 bytes, never inside a surrogate pair", () => {
    expect(splitValue("ab😀cdé", 4)).toEqual(["ab", "😀", "cdé"]);
    expect(splitValue("x".repeat(25), 10)).toEqual(["x".repeat(10), "x".repeat(10), "xxxxx"]);
  });

  it("a value over max_entry_bytes comes back whole, to its owner only", async () => {
    const kept = store();
    const value = `${"x".repeat(63)}ü`;
    await kept.put("s", [{ key: "k", value }]);
    expect([await kept.get("s", "k"), await kept.get("other", "k")]).toEqual([value, undefined]);
    expect(await kept.get("s", pieceKey("k", 1, 3))).toBe("x".repeat(31));
    expect(await kept.get("s", pieceKey("k", 2, 3))).toBe("ü");
  });

  it("a missing piece, or pieces that do not add up, is a miss: never half an original", async () => {
    const pieces = piecedEntries([{ key: "k", value: "x".repeat(70) }], 32);
    const kept = new Map(pieces.map(({ key, value }) => [key, value]));
    const head = kept.get("k");
    const read = async (key: string) => kept.get(key);
    expect(pieces.map(({ key }) => key)).toEqual(["k", "k#0/3", "k#1/3", "k#2/3"]);
    expect(await readPieced(head, read, "k")).toBe("x".repeat(70));
    kept.set("k#2/3", "xx");
    expect(await readPieced(head, read, "k")).toBeUndefined();
    kept.delete("k#2/3");
    expect(await readPieced(head, read, "k")).toBeUndefined();
  });

  it("values that start like a manifest are kept as they are", async () => {
    const kept = store({ max_entry_bytes: 1024 });
    const tricky = ["\u0000pieces:2:5", "\u0000", "\u0000\u0000x"];
    await kept.put(
      "s",
      tricky.map((value, index) => ({ key: `t${index}`, value })),
    );
    expect(await Promise.all(tricky.map((_, index) => kept.get("s", `t${index}`)))).toEqual(tricky);
  });
});
