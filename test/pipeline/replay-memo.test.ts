import { describe, expect, it } from "vitest";
import { Compactor } from "../../src/compact/compactor.js";
import { mask } from "../../src/components/mask.js";
import { maskCalls } from "../../src/components/mask-calls.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import type { Registry } from "../../src/pipeline/run.js";
import { createStore } from "../../src/store/create.js";

/**
 * A replay asks a component that reduces a text alone (`reducesText`: mask_calls) about each
 * slot it decided once, across requests: the answer, and what it stashes, are remembered by
 * text (pipeline/reduce-output.ts reduceText), and the bytes are those of asking every time.
 */
const file = (turn: number) =>
  Array.from({ length: 80 }, (_, line) => `export const v_${turn}_${line} = f(${line});`).join(
    "\n",
  );

/** Turn `count` of a session: one Write of a large file a turn, answered briefly. */
function turn(count: number): string {
  const messages: unknown[] = [{ role: "user", content: "Generate the modules." }];
  for (let index = 0; index < count; index++) {
    const input = { file_path: `src/m_${index}.ts`, content: file(index) };
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_${index}`, name: "Write", input }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${index}`, content: "Written." }],
    });
  }
  const tools = [{ name: "Write", input_schema: { type: "object" } }];
  return JSON.stringify({ model: "m", max_tokens: 9, system: "You write code.", messages, tools });
}

async function session(registry: Registry, compactors: "one" | "each turn") {
  const config = parseConfig({ pipeline: ["mask_calls"] });
  const store = createStore(config.store);
  let now = 1_000_000;
  const make = () =>
    new Compactor({ config, store, registry, hashKey: "replay-memo-key", clock: () => now });
  let compactor = make();
  const texts: string[] = [];
  for (let count = 4; count <= 8; count++) {
    if (compactors === "each turn") compactor = make();
    // The first turn decides (cold); the others replay what it decided (warm).
    const options = count === 4 ? { session: "s", cache: "cold" as const } : { session: "s" };
    texts.push((await compactor.compact(turn(count), options)).text);
    now += 10_000;
  }
  return texts;
}

describe("replays of a component that reduces a text alone", () => {
  it("ask it once a text, and give the bytes of asking every time", async () => {
    const asked = new Map<string, number>();
    const counting: typeof maskCalls = {
      ...maskCalls,
      reduce(call, options, context) {
        asked.set(call.text, (asked.get(call.text) ?? 0) + 1);
        return maskCalls.reduce(call, options, context);
      },
    };
    const registry: Registry = { ...components, mask_calls: counting };
    const remembered = await session(registry, "one");
    // Calls were cleared on the first turn and replayed on the later ones.
    expect(remembered.at(-1)).toContain("lines sent earlier");
    expect(asked.size).toBeGreaterThan(0);
    for (const times of asked.values()) expect(times).toBe(1);
    expect(remembered).toEqual(await session(components, "each turn"));
  });
});

/** Turn `count` of a session of Bash calls, each answered by a long build log. */
function logTurn(count: number): string {
  const messages: unknown[] = [{ role: "user", content: "Fix the build." }];
  for (let index = 0; index < count; index++) {
    const input = { command: `make target_${index}` };
    const log = Array.from({ length: 60 }, (_, line) => `[${index}] compiled unit_${line}.o`);
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_${index}`, name: "Bash", input }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${index}`, content: log.join("\n") }],
    });
  }
  const tools = [{ name: "Bash", input_schema: { type: "object" } }];
  return JSON.stringify({ model: "m", max_tokens: 9, system: "You fix builds.", messages, tools });
}

describe("replays taken as they went (pipeline/replay-trace.ts)", () => {
  it("ask no component again about a slot a warm turn re-sends, and answer alike", async () => {
    const asked = new Map<string, number>();
    const counting: typeof mask = {
      ...mask,
      reduce(output, options, context) {
        asked.set(output.text, (asked.get(output.text) ?? 0) + 1);
        return mask.reduce(output, options, context);
      },
    };
    const config = parseConfig({ pipeline: ["mask"], components: { mask: { keep_recent: 1 } } });
    const run = async (registry: Registry, fresh: boolean) => {
      const store = createStore(config.store);
      let now = 1_000_000;
      const make = () =>
        new Compactor({ config, store, registry, hashKey: "replay-trace-key", clock: () => now });
      let compactor = make();
      const answers: unknown[] = [];
      for (let count = 6; count <= 10; count++) {
        if (fresh) compactor = make();
        const options = count === 6 ? { session: "s", cache: "cold" as const } : { session: "s" };
        const result = await compactor.compact(logTurn(count), options);
        const components = result.report?.components.map(({ durationMs: _, ...entry }) => entry);
        answers.push({ text: result.text, markers: result.markerIds, components });
        now += 10_000;
      }
      return answers;
    };
    const remembered = await run({ ...components, mask: counting }, false);
    expect(JSON.stringify(remembered.at(-1))).toContain("<<cg:");
    // Each output mask hid on the cold turn: asked when decided and when first replayed.
    expect(asked.size).toBeGreaterThan(0);
    for (const times of asked.values()) expect(times).toBeLessThanOrEqual(2);
    expect(remembered).toEqual(await run(components, true));
  });
});
