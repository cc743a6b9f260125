import { describe, expect, it } from "vitest";
import { generateCorpus } from "../../bench/corpus/generate.js";
import { Redecisions } from "../../src/cache/redecisions.js";
import { Compactor } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import type { Registry } from "../../src/pipeline/run.js";
import { createStore } from "../../src/store/create.js";
import { MASK_BY_AGE } from "../support/app.js";

/** The default components, counting the calls they get in a run that re-decides the head. */
function countingRegistry(): { registry: Registry; redeciding: () => number } {
  let calls = 0;
  const counted =
    (call: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      if (args.some((arg) => (arg as { redecide?: unknown } | null)?.redecide === true)) calls++;
      return call(...args);
    };
  const registry: Record<string, unknown> = {};
  for (const [name, component] of Object.entries(components)) {
    const select = (component as { select?: (...args: unknown[]) => unknown }).select;
    registry[name] = {
      ...component,
      reduce: counted(component.reduce as (...args: unknown[]) => unknown),
      ...(select ? { select: counted(select) } : {}),
    };
  }
  return { registry: registry as Registry, redeciding: () => calls };
}

describe("re-decisions of a warm head, remembered by request (§4a)", () => {
  it("a re-sent request whose re-decision was refused is judged again without a second run", async () => {
    // One generated session, each checkpoint re-sent as the next turns (clean mode): the last
    // checkpoint's estimate calls for a priced re-decision that its result refuses.
    const bodies = generateCorpus({ sessions: 6, seed: 1 }).filter(
      (entry) => entry.session === 2 && entry.provider === "openai",
    );
    const config = parseConfig({ ...MASK_BY_AGE, store: { enabled: false }, marker_mode: "off" });
    const { registry, redeciding } = countingRegistry();
    let now = 1_000_000;
    const compactor = new Compactor({
      config,
      store: createStore(config.store),
      registry,
      hashKey: "redecisions-test-key",
      clock: () => now,
    });
    const send = async (body: string) => {
      const before = redeciding();
      const result = await compactor.compact(body, { session: "s" });
      now += 20_000;
      return { result, redeciding: redeciding() - before };
    };
    for (const entry of bodies.slice(0, -1))
      for (let turn = 0; turn < 6; turn++) await send(entry.body);
    const last = (bodies.at(-1) as { body: string }).body;
    type Sent = Awaited<ReturnType<typeof send>>;
    const sent: Sent[] = [];
    for (let turn = 0; turn < 4; turn++) sent.push(await send(last));
    const [first, ...repeats] = sent as [Sent, ...Sent[]];
    for (const { result } of sent) {
      expect(result.cache.state).toBe("warm");
      expect(result.text).toBe(first.result.text);
    }
    // The first ran the re-decision its estimate called for, and refused it; each repeat is
    // judged from the remembered one, without a run.
    expect(first.redeciding).toBeGreaterThan(0);
    for (const repeat of repeats) expect(repeat.redeciding).toBe(0);
  });
});

describe("the remembered re-decisions", () => {
  const redecision = { decided: { text: "{}", tokens: 1 }, tool: false };

  it("are found only for the same text, shape, pipeline and expanded originals", () => {
    const memo = new Redecisions(1_000_000);
    memo.set("body", "openai", ["mask"], new Set(["a", "b"]), redecision);
    expect(memo.get("body", "openai", ["mask"], new Set(["b", "a"]))).toBe(redecision);
    expect(memo.get("body2", "openai", ["mask"], new Set(["a", "b"]))).toBeUndefined();
    expect(memo.get("body", "anthropic", ["mask"], new Set(["a", "b"]))).toBeUndefined();
    expect(memo.get("body", "openai", ["mask", "dedup"], new Set(["a", "b"]))).toBeUndefined();
    expect(memo.get("body", "openai", ["mask"], new Set(["a"]))).toBeUndefined();
  });

  it("never keep one decided by a model", () => {
    const memo = new Redecisions(1_000_000);
    memo.set("body", "openai", ["mask", "summarize"], new Set(), redecision);
    expect(memo.get("body", "openai", ["mask", "summarize"], new Set())).toBeUndefined();
  });
});
