import { describe, expect, it } from "vitest";
import { responsesSessions } from "../../bench/cost.js";
import { CacheModel, coldTurn, costByShape, replayCost } from "../../bench/cost-replay.js";
import { commonPrefix, PromptTokens } from "../../bench/prompt-tokens.js";
import { responsesForm } from "../../bench/responses-shape.js";
import { openaiBody } from "../support/bodies.js";

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("CacheModel: what a turn costs (SPEC §11)", () => {
  it("charges vLLM for everything after the last whole 16-token block of the shared prefix", () => {
    const model = new CacheModel();
    expect(model.charge(range(0, 40), false).vllm).toBe(40);
    // 40 shared tokens: two whole blocks (32) are cached, 8 + 10 new tokens are prefilled.
    expect(model.charge(range(0, 50), false)).toMatchObject({ vllm: 18, broke: false });
  });

  it("reads Anthropic's cache only at an earlier request's end, writes the rest at 1.25", () => {
    const model = new CacheModel();
    expect(model.charge(range(0, 100), false).anthropic).toBe(125);
    // The first 100 tokens end an earlier request: read at 0.1, 20 new ones written.
    expect(model.charge(range(0, 120), false).anthropic).toBeCloseTo(0.1 * 100 + 1.25 * 20);
    // A change at token 110 breaks the prefix: the 100-token breakpoint still reads.
    const changed = [...range(0, 110), 999, ...range(111, 130)];
    expect(model.charge(changed, false)).toMatchObject({ broke: true });
    expect(new CacheModel().charge(range(0, 10), true).anthropic).toBe(12.5);
  });

  it("a cold turn pays everything and forgets what was cached", () => {
    const model = new CacheModel();
    model.charge(range(0, 64), false);
    expect(model.charge(range(0, 80), true)).toMatchObject({
      vllm: 80,
      anthropic: 100,
      broke: false,
    });
  });

  it.each([
    ["warm", [true, false, false, false, false, false, false, false, false, false, false]],
    ["cold-every-10", [true, false, false, false, false, false, false, false, false, true, false]],
    ["cold", [true, true, true, true, true, true, true, true, true, true, true]],
  ] as const)("%s schedule marks the cold turns", (schedule, expected) => {
    expect(range(1, 12).map((turn) => coldTurn(schedule, turn))).toEqual(expected);
  });
});

describe("replayCost", () => {
  const turns = [1, 2, 3].map(
    (count) =>
      `{"messages":[${Array.from({ length: count }, (_, i) => `{"role":"user","content":"message number ${i} of the session"}`).join(",")}]}`,
  );

  it("costs a compaction that changes nothing exactly as bypass, with no break", async () => {
    const cost = await replayCost(
      [{ name: "s", provider: "openai", turns }],
      "warm",
      async (_, turn) => turn,
    );
    expect(cost.compacted).toEqual(cost.bypass);
    expect([cost.breaks, cost.warmTurns]).toEqual([0, 2]);
  });

  it("counts a warm turn whose prompt no longer starts with the previous one as a break", async () => {
    const rewritten = async (_: unknown, turn: string, { index }: { index: number }) =>
      index === 2 ? turn.replace("message number 0", "msg 0") : turn;
    const cost = await replayCost([{ name: "s", provider: "openai", turns }], "warm", rewritten);
    expect(cost.breaks).toBe(1);
    expect(cost.compacted.vllm).toBeGreaterThan(cost.bypass.vllm);
  });

  it("sums each wire format's sessions apart", async () => {
    const responses = turns.map(responsesForm);
    const halved = async (session: { provider: string }, turn: string) =>
      session.provider === "responses" ? turn.replaceAll(" of the session", "") : turn;
    const cost = await replayCost(
      [
        { name: "chat", provider: "openai", turns },
        { name: "chat:responses", provider: "responses", turns: responses },
      ],
      "cold",
      halved,
    );
    const [chat, items] = costByShape(cost);
    expect([chat?.provider, chat?.sessions, items?.provider, items?.sessions]).toEqual([
      "openai",
      1,
      "responses",
      1,
    ]);
    expect(chat?.compacted).toEqual(chat?.bypass);
    expect(items?.compacted.serving).toBeLessThan(items?.bypass.serving ?? 0);
    expect((chat?.bypass.serving ?? 0) + (items?.bypass.serving ?? 0)).toBe(cost.bypass.serving);
  });

  it("renders a Responses body's items as the chat form's messages", () => {
    const chat = openaiBody(["first output", "second output"], { tools: undefined });
    const prompts = new PromptTokens();
    expect(prompts.of("responses", responsesForm(chat))).toEqual(prompts.of("openai", chat));
    expect(responsesSessions([{ name: "s", provider: "openai", turns: [chat] }])).toEqual([
      { name: "s:responses", provider: "responses", turns: [responsesForm(chat)] },
    ]);
  });

  it("renders each message on its own, so a prefix of messages is a prefix of tokens", () => {
    const prompts = new PromptTokens();
    const short = prompts.of("openai", turns[1] as string);
    const long = prompts.of("openai", turns[2] as string);
    expect(commonPrefix(short, long)).toBe(short.length);
  });
});
