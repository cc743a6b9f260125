import { describe, expect, it } from "vitest";
import { Compactor, type CompactResult } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { withoutDeadline } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";

/**
 * A dry run (CompactOptions `dryRun`) decides a body exactly as the request would be decided now
 * and records nothing: no stash, no ledger head, no value staged ahead of a put, no answer sent
 * ahead of a write.
 */
const TOOLS = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];
const outputs = [logOutput(60, "a"), logOutput(4_000, "make"), logOutput(60, "b")];
const turnOne = openaiBody(outputs, { tools: TOOLS });
const turnTwo = openaiBody([...outputs, logOutput(60, "c"), logOutput(60, "d")], { tools: TOOLS });
const SESSION = "dry-run";

/** A compactor over a memory store whose every call is named in `calls`. */
function compactorWithCalls() {
  const config = parseConfig(withoutDeadline({}));
  const store = createStore(config.store);
  const calls: string[] = [];
  const recorded: Store = Object.assign(Object.create(store) as Store, {
    backend: store.backend,
    persists: store.persists,
    stage: () => calls.push("stage"),
    put: (...args: Parameters<Store["put"]>) => {
      calls.push("put");
      return store.put(...args);
    },
  });
  const compactor = new Compactor({
    config,
    store: recorded,
    registry: components,
    hashKey: TEST_HASH_KEY,
    clock: () => 1_000_000,
  });
  return { compactor, store, calls };
}

describe("Compactor dry run", () => {
  it.each(["cold", "warm"] as const)(
    "gives the answer the real request gets next and records nothing (%s)",
    async (cache) => {
      const { compactor, store, calls } = compactorWithCalls();
      await compactor.compact(turnOne, { session: SESSION, cache: "cold" });
      const ledger = await store.ledger(SESSION);
      const stats = await store.stats();
      calls.length = 0;
      const ahead: CompactResult[] = [];

      const dry = await compactor.compact(turnTwo, {
        session: SESSION,
        cache,
        dryRun: true,
        ahead: (answer) => ahead.push(answer),
      });

      expect(calls).toEqual([]);
      expect(ahead).toEqual([]);
      expect(await store.ledger(SESSION)).toEqual(ledger);
      expect(await store.stats()).toEqual(stats);
      const real = await compactor.compact(turnTwo, { session: SESSION, cache });
      expect(real.markers).toBeGreaterThan(0);
      expect(dry.text).toBe(real.text);
      expect(dry.markerIds).toEqual(real.markerIds);
      expect(dry.cache).toEqual(real.cache);
      expect([dry.tokensBefore, dry.tokensAfter]).toEqual([real.tokensBefore, real.tokensAfter]);
      expect(calls).toContain("put");
    },
  );
});
