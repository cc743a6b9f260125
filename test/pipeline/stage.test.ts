import { describe, expect, it } from "vitest";
import { Compactor } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";
import type { StashEntry, Store } from "../../src/store/types.js";
import { CLEAN, withoutDeadline } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY, testIdOf } from "../support/hash-key.js";

/**
 * What a put will carry is told to the store before it (Store.stage): the original of each output
 * a run decides anew as the run starts, each other value as it is stashed. A store across threads
 * sends a long one ahead while the body is still being compacted.
 */
const TOOLS = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];
const huge = logOutput(4_000, "make");
const body = openaiBody([logOutput(20, "a"), huge, logOutput(20, "b")], { tools: TOOLS });

/** A store that records, in order, each value staged and each put's entries. */
function recording(config: ConfigInput) {
  const parsed = parseConfig(withoutDeadline(config));
  const store = createStore(parsed.store);
  const events: Array<{ staged: string } | { put: readonly StashEntry[] }> = [];
  const recorded: Store = Object.assign(Object.create(store) as Store, {
    backend: store.backend,
    persists: store.persists,
    stage: (value: string) => {
      events.push({ staged: value });
    },
    put: (...args: Parameters<Store["put"]>) => {
      events.push({ put: args[1] });
      return store.put(...args);
    },
  });
  const compactor = new Compactor({
    config: parsed,
    store: recorded,
    registry: components,
    hashKey: TEST_HASH_KEY,
  });
  return { compactor, events };
}

describe("values a run stashes", () => {
  it("are told to the store before the put that carries them", async () => {
    const { compactor, events } = recording({});
    const result = await compactor.compact(body, { cache: "cold" });
    expect(result.markers).toBeGreaterThan(0);

    const puts = events.flatMap((event) => ("put" in event ? [event.put] : []));
    expect(puts).toHaveLength(1);
    const putAt = events.findIndex((event) => "put" in event);
    const staged = events
      .slice(0, putAt)
      .flatMap((event) => ("staged" in event ? [event.staged] : []));
    // The huge output's original among them, and every long value the put carries.
    expect(staged).toContain(huge);
    const long = (puts[0] ?? []).filter((entry) => entry.value.length >= 1_000);
    expect(long.length).toBeGreaterThan(0);
    for (const entry of long) expect(staged).toContain(entry.value);
  });

  it("include a slot decided anew even if nothing changes it, but not one sent before", async () => {
    const { compactor, events } = recording({});
    const outputs = [logOutput(20, "a"), huge, logOutput(20, "b")];
    const session = { session: "replayed", pipeline: ["dedup" as const] };
    const first = await compactor.compact(openaiBody(outputs, { tools: TOOLS }), {
      ...session,
      cache: "cold",
    });
    expect(first.changed).toBe(false);
    expect(events).toContainEqual({ staged: huge });

    events.length = 0;
    const next = logOutput(20, "c");
    const second = await compactor.compact(
      openaiBody([...outputs, next], { tools: TOOLS }),
      session,
    );
    expect(second.cache.state).toBe("warm");
    // The new output, and the new call's arguments (the agent's calls are slots too).
    expect(events.filter((event) => "staged" in event)).toEqual([
      { staged: next },
      { staged: JSON.stringify({ command: "step 3" }) },
    ]);
  });

  it("leave out an original the session already stashed: the put leaves it out too", async () => {
    const { compactor, events } = recording({});
    const first = await compactor.compact(body, { session: "stashed", cache: "cold" });
    expect(first.markerIds).toContain(testIdOf(huge));

    events.length = 0;
    const next = logOutput(20, "c");
    const outputs = [logOutput(20, "a"), huge, logOutput(20, "b"), next];
    const second = await compactor.compact(openaiBody(outputs, { tools: TOOLS }), {
      session: "stashed",
    });
    expect(second.cache.state).toBe("warm");
    expect(second.markerIds).toContain(testIdOf(huge));
    const values = events.flatMap((event) =>
      "staged" in event ? [event.staged] : event.put.map(({ value }) => value),
    );
    expect(values).toContain(next);
    expect(values).not.toContain(huge);
  });

  it("are none in clean mode, where nothing is stashed", async () => {
    const { compactor, events } = recording(CLEAN);
    const result = await compactor.compact(body, { cache: "cold" });
    expect(result.changed).toBe(true);
    expect(events.filter((event) => "staged" in event)).toEqual([]);
  });
});
