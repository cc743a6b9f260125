import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayTurns } from "../../bench/turns.js";
import { Compactor, type CompactResult } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { markerIds } from "../../src/expand/markers.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { TURN_SPACING_MS } from "../support/recorded-session.js";
import { agentBodies, hasSharedCorpus } from "../support/shared-corpus.js";

/**
 * The compactor's memos (token counts, content classes, component results, content ids,
 * refused re-decisions, what a session already stashed) are an optimisation, never a source of
 * truth (§4a): a miss recomputes exactly what a hit gives. Replayed sessions of
 * ../shared/corpus/agent must come back byte for byte the same whether the memos hold
 * everything, hold almost nothing (a budget that evicts on every request), or are lost at
 * turns drawn at random (a restart: a new compactor on the same store).
 */

const HASH_KEY = "memo-equivalence-key";

/** Sessions of both chat shapes, the longest among them. */
const FILES = ["s0-t049-openai.json", "s0-t049-anthropic.json", "s2-t013-anthropic.json"];

function turnsOf(file: string): string[] {
  const body = agentBodies().find((entry) => entry.file === file);
  if (!body) throw new Error(`${file} is not in the corpus`);
  return replayTurns(body.provider, body.body);
}

/**
 * The bodies a session's turns come back as, on an injected clock; a new compactor on the same
 * store at every turn `restartAt` says.
 */
async function replay(
  turns: readonly string[],
  config: ConfigInput,
  restartAt: (turn: number) => boolean = () => false,
): Promise<{ texts: string[]; answers: unknown[]; store: Store }> {
  const parsed = parseConfig(config);
  const store: Store = createStore(parsed.store);
  let now = 1_000_000;
  const fresh = () =>
    new Compactor({
      config: parsed,
      store,
      registry: components,
      hashKey: HASH_KEY,
      clock: () => now,
    });
  let compactor = fresh();
  const out: string[] = [];
  const answers: unknown[] = [];
  for (const [index, text] of turns.entries()) {
    if (index > 0 && restartAt(index)) compactor = fresh();
    const result = await compactor.compact(text, { session: "memo" });
    out.push(result.text);
    answers.push(answerOf(result));
    now += TURN_SPACING_MS;
  }
  return { texts: out, answers, store };
}

/** What an answer says beside its bytes: markers, tokens, replays, each component's report. */
function answerOf(result: CompactResult) {
  return {
    markers: result.markers,
    markerIds: result.markerIds,
    tokensAfter: result.tokensAfter,
    cache: result.cache,
    replayed: result.replayed,
    // Durations are the clock's.
    components: result.report?.components.map(({ durationMs: _, ...entry }) => entry),
  };
}

/** Marker ids of the returned bodies the store cannot give back. */
async function unresolved(texts: readonly string[], store: Store): Promise<string[]> {
  // The expand tool's description shows the marker's form (`<<cg:HASH>>`): content ids only.
  const ids = new Set(
    texts.flatMap((text) => markerIds(text)).filter((id) => /^[0-9a-f]{16}$/.test(id)),
  );
  const missing: string[] = [];
  for (const id of ids) if ((await store.get("memo", id)) === undefined) missing.push(id);
  return missing;
}

describe.skipIf(!hasSharedCorpus)("memo hits and misses give the same bytes (§4a)", () => {
  it.each(FILES)(
    "%s: a memo budget that evicts on every request changes nothing",
    async (file) => {
      const turns = turnsOf(file);
      const held = await replay(turns, {});
      const starved = await replay(turns, { limits: { memo_bytes: 1024 } });
      expect(starved.texts).toEqual(held.texts);
      // Replays taken as they went (pipeline/replay-trace.ts) report what running them reports.
      expect(starved.answers).toEqual(held.answers);
      expect(held.texts.some((text) => markerIds(text).length > 0)).toBe(true);
      expect(await unresolved(starved.texts, starved.store)).toEqual([]);
    },
    120_000,
  );

  it("restarts at turns drawn at random change nothing", async () => {
    const turns = turnsOf("s0-t049-openai.json");
    const { texts: held } = await replay(turns, {});
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: turns.length, maxLength: turns.length }),
        async (restarts) => {
          const restarted = await replay(turns, {}, (turn) => restarts[turn] === true);
          expect(restarted.texts).toEqual(held);
          // Every marker still resolves: what a restarted compactor no longer knows it stashed,
          // it puts again.
          expect(await unresolved(restarted.texts, restarted.store)).toEqual([]);
        },
      ),
      { numRuns: 4 },
    );
  }, 300_000);
});
