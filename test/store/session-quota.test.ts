import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { storeSchema } from "../../src/config/schema.js";
import { StoreCapacityError } from "../../src/errors/store-error.js";
import { chargeOf, SessionQuota, sessionLimits } from "../../src/store/session-quota.js";

const charges = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe("sessionLimits", () => {
  it.each([
    [
      "the defaults: an eighth of max_bytes and of max_entries",
      {},
      { bytes: 32 * 1024 * 1024, entries: 25_000 },
    ],
    [
      "max_session_bytes given",
      { max_bytes: 1000, max_entries: 100, max_session_bytes: 500 },
      { bytes: 500, entries: 50 },
    ],
    [
      "never more than max_bytes",
      { max_bytes: 1000, max_session_bytes: 5000 },
      { bytes: 1000, entries: 200_000 },
    ],
    ["at least one entry", { max_bytes: 1000, max_entries: 3 }, { bytes: 125, entries: 1 }],
  ])("%s", (_name, input, expected) => {
    expect(sessionLimits(storeSchema.parse(input))).toEqual(expected);
  });

  it.each([
    ["the defaults: max_bytes / 8 is the body limit", {}, 32 * 1024 * 1024],
    // k8s/base: a 24 MB output of one body stays reversible.
    [
      "a store of 128 MiB: the body limit",
      { store: { max_bytes: 128 * 1024 * 1024 } },
      32 * 1024 * 1024,
    ],
    [
      "a store of 1 GiB: an eighth",
      { store: { max_bytes: 1024 * 1024 * 1024 } },
      128 * 1024 * 1024,
    ],
    ["a store smaller than a body: the store", { store: { max_bytes: 1024 * 1024 } }, 1024 * 1024],
    ["given: as given", { store: { max_session_bytes: 1000 } }, 1000],
  ])("parseConfig resolves max_session_bytes: %s", (_name, input, expected) => {
    expect(parseConfig(input).store.max_session_bytes).toBe(expected);
  });

  it("charges what the store counts for an entry: overhead, value, key and owner", () => {
    expect(chargeOf("s1", "k1", "é".repeat(10))).toBe(256 + 20 + 2 + 2);
  });
});

describe("SessionQuota", () => {
  it("gives up the session's least recently used keys first, never those being put", () => {
    const quota = new SessionQuota({ bytes: 100, entries: 10 });
    for (const key of ["a", "b", "c", "d"]) quota.charge("s", key, 25);
    quota.touch("s", "a");
    expect(quota.overflow("s", charges({ e: 30 }))).toEqual(["b", "c"]);
    expect(quota.overflow("s", charges({ b: 25, e: 30 }))).toEqual(["c", "d"]);
    expect(quota.overflow("other", charges({ e: 30 }))).toEqual([]);
  });

  it("holds a session to its share of entries too", () => {
    const quota = new SessionQuota({ bytes: 1000, entries: 3 });
    for (const key of ["a", "b", "c"]) quota.charge("s", key, 1);
    expect(quota.overflow("s", charges({ d: 1, e: 1 }))).toEqual(["a", "b"]);
  });

  it("charges a key once, however often it is charged", () => {
    const quota = new SessionQuota({ bytes: 100, entries: 10 });
    quota.charge("s", "a", 40);
    quota.charge("s", "a", 60);
    expect(quota.usage("s")).toEqual({ bytes: 60, entries: 1 });
    quota.release("s", "a");
    quota.release("s", "a");
    expect(quota.usage("s")).toEqual({ bytes: 0, entries: 0 });
  });

  it.each([
    [{ a: 60, b: 41 }, "store put: 101 bytes in one put, more than store.max_session_bytes"],
    [
      { a: 1, b: 1, c: 1 },
      "store put: 3 entries in one put, more than one session's share of store.max_entries",
    ],
  ])("refuses a put that alone exceeds the share: %j", (incoming, message) => {
    const quota = new SessionQuota({ bytes: 100, entries: 2 });
    const overflow = () => quota.overflow("s", charges(incoming));
    expect(overflow).toThrow(StoreCapacityError);
    expect(overflow).toThrow(message);
  });
});
