import { describe, expect, it } from "vitest";
import { CacheModel } from "../../bench/cost-replay.js";
import { PromptTokens } from "../../bench/prompt-tokens.js";
import { replayTurns } from "../../bench/turns.js";
import { LOSS_BOUND } from "../../src/cache/break-decision.js";
import { pricingFor } from "../../src/cache/pricing.js";
import { type ConfigInput, cacheSchema } from "../../src/config/schema.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { wireShape } from "../../src/wire/registry.js";
import { replayRecorded } from "../support/recorded-session.js";
import { agentBodies, hasSharedCorpus } from "../support/shared-corpus.js";

interface Turn {
  readonly text: string;
  readonly reason: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/** A recorded session sent turn by turn (test/support/recorded-session.ts), as each came back. */
async function replay(
  file: string,
  cache: ConfigInput["cache"] = {},
  pipeline?: ConfigInput["pipeline"],
): Promise<Turn[]> {
  return (await replayRecorded(file, cache, pipeline)).map((result) => ({
    text: result.text,
    reason: `${result.cache.state}/${result.cache.reason}`,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
  }));
}

/** The turns of a recorded session as received: what bypass sends. */
function receivedTurns(file: string): Turn[] {
  const body = agentBodies().find((entry) => entry.file === file);
  if (!body) throw new Error(`${file} is not in the corpus`);
  return replayTurns(body.provider, body.body).map((text) => ({
    text,
    reason: "bypass",
    tokensBefore: 0,
    tokensAfter: 0,
  }));
}

/** The serving cost of the returned prompts with an always-warm cache (SPEC §11). */
function servingCost(provider: "openai" | "anthropic", turns: readonly Turn[]): number {
  const model = new CacheModel();
  const prompts = new PromptTokens();
  let total = 0;
  for (const [index, turn] of turns.entries()) {
    const charge = model.charge(prompts.of(provider, turn.text), index === 0);
    total += provider === "anthropic" ? charge.anthropic : charge.serving;
  }
  return total;
}

const reasons = (turns: readonly Turn[]) =>
  turns.flatMap((turn, index) =>
    turn.reason === "warm/recent" ? [] : [`${index}:${turn.reason}`],
  );

const messages = (text: string) =>
  (scanBody(text)?.messages ?? []).map((span) => text.slice(span.start, span.end));

describe.skipIf(!hasSharedCorpus)("priced breaks of a warm prefix (§4a)", () => {
  it("a long recorded session takes priced breaks that cost less than freezing", async () => {
    const priced = await replay("s0-t049-openai.json");
    const frozen = await replay("s0-t049-openai.json", { pricing: "prefill-only" });
    expect(reasons(priced)).toEqual(["0:warm/unknown", "24:cold/priced", "37:cold/priced"]);
    expect(reasons(frozen)).toEqual(["0:warm/unknown"]);
    expect(servingCost("openai", priced)).toBeLessThan(servingCost("openai", frozen));
  }, 60_000);

  // Seven requests are too few to price a break by.
  it("a short session takes none (s3-t007-openai.json)", async () => {
    expect(reasons(await replay("s3-t007-openai.json"))).toEqual(["0:warm/unknown"]);
  }, 60_000);

  // Thirteen requests: a break once the history is long enough to price one is a bet on turns
  // that may not come; its loss is bounded by LOSS_BOUND of what the session cost as received,
  // by the ledger's estimate (message tokens at the session's prices). Billed by the block, as
  // here, the session may land up to three points further off.
  it.each([
    ["s2-t013-openai.json", "openai"],
    ["s2-t013-anthropic.json", "anthropic"],
  ] as const)(
    "a short session's breaks keep it within the loss bound of bypass (%s)",
    async (file, provider) => {
      const priced = await replay(file);
      expect(reasons(priced)).toHaveLength(2);
      expect(reasons(priced)[1]).toMatch(/^1\d:cold\/priced$/);
      const bypass = receivedTurns(file);
      expect(servingCost(provider, priced)).toBeLessThanOrEqual(
        (LOSS_BOUND + 0.03) * servingCost(provider, bypass),
      );
    },
    60_000,
  );

  it("the break is announced, and what it returned is given back byte for byte after", async () => {
    const turns = await replay("s0-t049-anthropic.json");
    const at = turns.findIndex((turn) => turn.reason === "cold/priced");
    expect(at).toBe(24);
    const broken = messages(turns[at]?.text ?? "");
    for (const later of turns.slice(at + 1)) {
      if (later.reason !== "warm/recent") break;
      expect(messages(later.text).slice(0, broken.length)).toEqual(broken);
    }
  }, 60_000);

  it("the context budget clears towards the low-water mark in one event, then the turns are warm", async () => {
    const budget = 9_000;
    const turns = await replay("s0-t049-openai.json", {
      pricing: "prefill-only",
      context_budget_tokens: budget,
    });
    expect(reasons(turns)).toEqual(["0:warm/unknown", "23:cold/budget", "36:cold/budget"]);
    for (const [index, turn] of turns.entries()) {
      if (turn.reason !== "cold/budget") continue;
      // Down to the low-water mark, or at least the room between the mark and the budget.
      const room = budget - budget * 0.6;
      expect(turn.tokensAfter).toBeLessThanOrEqual(
        Math.max(budget * 0.6, turn.tokensBefore - room),
      );
      expect(turns[index + 1]?.reason ?? "warm/recent").toBe("warm/recent");
    }
  }, 60_000);

  it("the same history gives byte-identical output", async () => {
    const first = await replay("s0-t049-openai.json");
    const second = await replay("s0-t049-openai.json");
    expect(second.map((turn) => turn.text)).toEqual(first.map((turn) => turn.text));
  }, 60_000);
});

describe("cache.pricing (§4a)", () => {
  it.each([
    [{}, "anthropic", { read: 0.1, write: 1.25 }],
    [{}, "openai", { read: 0.1, write: 1 }],
    [{ pricing: "vllm" }, "anthropic", { read: 0.1, write: 1 }],
    [{ pricing: "anthropic" }, "openai", { read: 0.1, write: 1.25 }],
    [{ pricing: "prefill-only" }, "anthropic", { read: 0, write: 1 }],
    [{ pricing: { read: 0.5, write: 2 } }, "openai", { read: 0.5, write: 2 }],
    [{}, "responses", { read: 0.1, write: 1 }],
  ] as const)("%j prices a %s-shaped body at %j", (input, provider, expected) => {
    expect(pricingFor(cacheSchema.parse(input), wireShape(provider).pricing)).toEqual(expected);
  });

  it("rejects a read price above the write price, and an unknown name", () => {
    expect(cacheSchema.safeParse({ pricing: { read: 1, write: 0.5 } }).success).toBe(false);
    expect(cacheSchema.safeParse({ pricing: "free" }).success).toBe(false);
    expect(cacheSchema.parse({}).budget_low_water).toBe(0.6);
  });
});
