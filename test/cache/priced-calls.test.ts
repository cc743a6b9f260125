import { describe, expect, it } from "vitest";
import { CacheModel } from "../../bench/cost-replay.js";
import { PromptTokens } from "../../bench/prompt-tokens.js";
import { Compactor } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";

/**
 * Every reach-back component priced (§4a "Priced breaks"): an agent that writes large files
 * and reads back a line each time has nothing for mask to clear, only its own calls; the break
 * that clears them is estimated from mask_calls' own selection, and taken.
 */
const file = (turn: number) =>
  Array.from(
    { length: 120 },
    (_, line) => `export const value_${turn}_${line} = compute(${line});`,
  ).join("\n");

/** Turn `count` of an Anthropic session: one Write of a large file a turn, answered briefly. */
function turn(count: number): string {
  const messages: unknown[] = [{ role: "user", content: "Generate the modules." }];
  for (let index = 0; index < count; index++) {
    const input = { file_path: `src/module_${index}.ts`, content: file(index) };
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_${index}`, name: "Write", input }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${index}`, content: "File written." }],
    });
  }
  const tools = [{ name: "Write", input_schema: { type: "object" } }];
  return JSON.stringify({ model: "m", max_tokens: 9, system: "You write code.", messages, tools });
}

interface Turn {
  readonly reason: string;
  readonly text: string;
}

async function session(
  pipeline: ConfigInput["pipeline"],
  cache: ConfigInput["cache"] = {},
): Promise<Turn[]> {
  const config = parseConfig({ pipeline, cache });
  let now = 1_000_000;
  const compactor = new Compactor({
    config,
    store: createStore(config.store),
    registry: components,
    hashKey: "priced-calls-key",
    clock: () => now,
  });
  const turns: Turn[] = [];
  for (let count = 1; count <= 30; count++) {
    const result = await compactor.compact(turn(count), { session: "writes" });
    turns.push({ reason: `${result.cache.state}/${result.cache.reason}`, text: result.text });
    now += 20_000;
  }
  return turns;
}

/** What the returned prompts cost with an always-warm Anthropic cache (SPEC §11). */
function anthropicCost(turns: readonly Turn[]): number {
  const model = new CacheModel();
  const prompts = new PromptTokens();
  let total = 0;
  for (const [index, { text }] of turns.entries()) {
    total += model.charge(prompts.of("anthropic", text), index === 0).anthropic;
  }
  return total;
}

describe("a priced break through the agent's own calls (§4a, §5 mask_calls)", () => {
  it("is taken with mask_calls alone, where mask finds nothing to clear, and costs less", async () => {
    const priced = await session(["mask_calls"]);
    const reasons = priced.map((each) => each.reason);
    expect(reasons).toContain("cold/priced");
    // Each break is followed by warm turns that give it back: never two in a row.
    reasons.forEach((reason, index) => {
      if (reason === "cold/priced") expect(reasons[index + 1] ?? "warm/recent").toBe("warm/recent");
    });
    const frozen = await session(["mask_calls"], { pricing: "prefill-only" });
    expect(frozen.map((each) => each.reason)).not.toContain("cold/priced");
    expect(anthropicCost(priced)).toBeLessThan(anthropicCost(frozen));
    expect((await session(["mask"])).map((each) => each.reason)).not.toContain("cold/priced");
  }, 60_000);
});
