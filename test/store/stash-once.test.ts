import { describe, expect, it, vi } from "vitest";
import { Compactor } from "../../src/compact/compactor.js";
import { StashMemo } from "../../src/compact/stash-memo.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import { rehydrate } from "../../src/rehydrate.js";
import { createStore } from "../../src/store/create.js";
import type { StashEntry } from "../../src/store/types.js";
import { withoutDeadline } from "../support/app.js";
import { jsonArrayOutput, logOutput, openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY, testIdOf } from "../support/hash-key.js";

/** store.ttl_seconds, the lifetime of what is put (the default: 1800 s). */
const LIFETIME_MS = 1_800_000;
const outputs = [logOutput(120, "a"), logOutput(120, "b"), jsonArrayOutput(40), "done"];
const body = openaiBody(outputs);

/** A compactor over the memory store, both on one clock, with every put's entries recorded. */
function compactorOnMemory() {
  let now = 1_000_000;
  const config = parseConfig(withoutDeadline({}));
  const store = createStore(config.store, { clock: () => now });
  const put = vi.spyOn(store, "put");
  const compactor = new Compactor({
    config,
    store,
    registry: components,
    hashKey: TEST_HASH_KEY,
    clock: () => now,
  });
  return {
    store,
    compactor,
    advance: (ms: number) => {
      now += ms;
    },
    /** The entries of the last put. */
    lastPut: (): readonly StashEntry[] => put.mock.lastCall?.[1] ?? [],
    puts: () => put.mock.calls.length,
  };
}

/** `entries` by key, each with its value's content id (the values themselves are long). */
const byKey = (entries: readonly StashEntry[]) =>
  Object.fromEntries(entries.map(({ key, value }) => [key, testIdOf(value)]));

describe("originals a session already stashed (§7)", () => {
  it("are not put again by a warm turn that replays them, and every one comes back", async () => {
    const { store, compactor, advance, lastPut, puts } = compactorOnMemory();
    const first = await compactor.compact(body, { session: "s", cache: "cold" });
    const stashed = lastPut();
    advance(10_000);
    const again = await compactor.compact(body, { session: "s", cache: "warm" });

    expect(first.markerIds.length).toBeGreaterThan(0);
    expect(stashed.length).toBeGreaterThan(first.markerIds.length);
    expect({ state: again.cache.state, text: again.text === first.text }).toEqual({
      state: "warm",
      text: true,
    });
    // The turn's put still went (the ledger's new head), carrying no original.
    expect({ puts: puts(), entries: lastPut() }).toEqual({ puts: 2, entries: [] });
    const originals = await Promise.all(again.markerIds.map((id) => store.get("s", id)));
    expect(originals.map((original) => testIdOf(original ?? ""))).toEqual(again.markerIds);
    const restored = await rehydrate(again.text, store, testIdOf, { session: "s" });
    expect({ text: restored.text === body, unresolved: restored.unresolved }).toEqual({
      text: true,
      unresolved: 0,
    });
  });

  it("are left out of a turn that adds an output: it puts what the new one needs", async () => {
    const { compactor, advance, lastPut } = compactorOnMemory();
    await compactor.compact(body, { session: "s", cache: "cold" });
    const stashed = byKey(lastPut());
    advance(10_000);
    const added = logOutput(150, "c");
    const next = openaiBody([...outputs, added]);
    const result = await compactor.compact(next, { session: "s", cache: "warm" });
    const put = byKey(lastPut());

    expect(result.cache.state).toBe("warm");
    expect(Object.keys(put).length).toBeGreaterThan(0);
    expect(Object.entries(put).filter(([key, id]) => stashed[key] === id)).toEqual([]);
    expect(Object.values(put)).toContain(testIdOf(added));
  });

  it("are put again once half the store's lifetime passed since their put, then left out again", async () => {
    const { store, compactor, advance, lastPut } = compactorOnMemory();
    await compactor.compact(body, { session: "s", cache: "cold" });
    const stashed = byKey(lastPut());
    const sent: Array<Record<string, string>> = [];
    for (const step of [LIFETIME_MS / 2 - 1, 1, 1]) {
      advance(step);
      await compactor.compact(body, { session: "s", cache: "warm" });
      sent.push(byKey(lastPut()));
    }

    // Well inside the lifetime: nothing; at half of it: every original of the first put, which
    // starts their lifetime again; just after: nothing.
    expect(sent).toEqual([{}, stashed, {}]);
    advance(LIFETIME_MS - 1);
    const reads = await Promise.all(Object.keys(stashed).map((key) => store.get("s", key)));
    expect(reads.map((value) => testIdOf(value ?? ""))).toEqual(Object.values(stashed));
  });

  it("are put again when the session's lifetime passed and the store let them go", async () => {
    const { store, compactor, advance, lastPut } = compactorOnMemory();
    const first = await compactor.compact(body, { session: "s", cache: "cold" });
    const stashed = byKey(lastPut());
    advance(LIFETIME_MS + 1);
    const expired = await store.get("s", first.markerIds[0] ?? "");
    // The cache long gone too: the body is decided as on its first turn.
    const later = await compactor.compact(body, { session: "s", cache: "cold" });

    expect(expired).toBeUndefined();
    expect(byKey(lastPut())).toEqual(stashed);
    const restored = await rehydrate(later.text, store, testIdOf, { session: "s" });
    expect({ text: restored.text === body, unresolved: restored.unresolved }).toEqual({
      text: true,
      unresolved: 0,
    });
  });
});

describe("StashMemo", () => {
  const hash = testIdOf;
  const long = logOutput(10, "long");
  const plan = (memo: StashMemo, entries: StashEntry[], now: number, trusted = true) =>
    memo.plan("s", entries, now, { trusted, hash }).entries.map(({ key }) => key);

  it.each([
    {
      case: "the same value, inside half the lifetime",
      entry: { key: "k", value: long },
      at: 499,
      trusted: true,
      sent: [],
    },
    {
      case: "the same value, at half the lifetime",
      entry: { key: "k", value: long },
      at: 500,
      trusted: true,
      sent: ["k"],
    },
    {
      case: "another value under the key",
      entry: { key: "k", value: `${long}!` },
      at: 1,
      trusted: true,
      sent: ["k"],
    },
    {
      case: "a short value, the same",
      entry: { key: "short", value: "1" },
      at: 1,
      trusted: true,
      sent: [],
    },
    {
      case: "a short value, another",
      entry: { key: "short", value: "2" },
      at: 1,
      trusted: true,
      sent: ["short"],
    },
    {
      case: "a key never put",
      entry: { key: "new", value: long },
      at: 1,
      trusted: true,
      sent: ["new"],
    },
    {
      case: "a store not trusted with the session",
      entry: { key: "k", value: long },
      at: 1,
      trusted: false,
      sent: ["k"],
    },
    {
      case: "a clock set back",
      entry: { key: "k", value: long },
      at: -1,
      trusted: true,
      sent: ["k"],
    },
  ])("$case: sent $sent", ({ entry, at, trusted, sent }) => {
    const memo = new StashMemo(1_000_000, 1_000);
    memo
      .plan(
        "s",
        [
          { key: "k", value: long },
          { key: "short", value: "1" },
        ],
        0,
        { trusted, hash },
      )
      .remember();
    expect(plan(memo, [entry], at, trusted)).toEqual(sent);
  });

  it("remembers a put only once it was acknowledged, and per session", () => {
    const memo = new StashMemo(1_000_000, 1_000);
    const entries = [{ key: "k", value: long }];
    memo.plan("s", entries, 0, { trusted: true, hash });
    const unacknowledged = plan(memo, entries, 1);
    memo.plan("s", entries, 1, { trusted: true, hash }).remember();
    const other = memo.plan("t", entries, 2, { trusted: true, hash }).entries.length;
    expect({ unacknowledged, acknowledged: plan(memo, entries, 2), other }).toEqual({
      unacknowledged: ["k"],
      acknowledged: [],
      other: 1,
    });
  });
});
