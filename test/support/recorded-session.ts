import { replayTurns } from "../../bench/turns.js";
import { Compactor, type CompactResult } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";
import { agentBodies } from "./shared-corpus.js";

/** Time between the replayed turns of a session: well within the cache's lifetime. */
export const TURN_SPACING_MS = 20_000;

/**
 * Sends the recorded session `file` of ../shared/corpus/agent turn by turn under one session
 * key, on a clock moved by hand TURN_SPACING_MS a turn, with the default configuration, `cache`
 * and `pipeline` when given; the result of each turn.
 */
export async function replayRecorded(
  file: string,
  cache: ConfigInput["cache"] = {},
  pipeline?: ConfigInput["pipeline"],
): Promise<CompactResult[]> {
  const body = agentBodies().find((entry) => entry.file === file);
  if (!body) throw new Error(`${file} is not in the corpus`);
  const config = parseConfig({ cache, ...(pipeline ? { pipeline } : {}) });
  let now = 1_000_000;
  const compactor = new Compactor({
    config,
    store: createStore(config.store),
    registry: components,
    hashKey: "recorded-session-key",
    clock: () => now,
  });
  const results: CompactResult[] = [];
  for (const text of replayTurns(body.provider, body.body)) {
    results.push(await compactor.compact(text, { session: "priced" }));
    now += TURN_SPACING_MS;
  }
  return results;
}
