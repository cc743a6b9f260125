import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BenchApp, type Mode } from "../../../bench/bench-app.js";
import { replaySessions, responsesSessions } from "../../../bench/cost.js";
import { ownPrices } from "../../../bench/cost-replay.js";
import { loadCorpus } from "../../../bench/load-corpus.js";
import { BodyReader } from "../../../bench/needed-facts/body-reading.js";
import { recoveryCost } from "../../../bench/needed-facts/recovery.js";
import { type SessionStash, turnFacts } from "../../../bench/needed-facts/turn-facts.js";
import { PromptTokens } from "../../../bench/prompt-tokens.js";
import type { Provider } from "../../../src/wire/types.js";
import { hasSharedCorpus, SHARED_CORPUS } from "../../support/shared-corpus.js";
import { fileView, type Step, sessionTurns } from "./agent-session.js";

const NOTHING_STASHED: SessionStash = {
  original: async () => undefined,
  decisions: async () => undefined,
};

const source = Array.from(
  { length: 40 },
  (_, index) =>
    `    settings_${index} = load_setting(raw_config, "key_${index}", default=${index})`,
);
source[12] = "    if raw_config.get('strict_mode') is None:";
const steps: Step[] = [
  {
    tool: "Read",
    input: { file_path: "/repo/app/settings.py" },
    output: fileView(source),
  },
  ...[1, 2, 3, 4].map(
    (run): Step => ({
      tool: "Bash",
      input: { command: `./report.sh part${run}` },
      output: Array.from(
        { length: 30 },
        (_, index) => `report part${run} row ${index}: value ${run * 1000 + index} within bounds`,
      ).join("\n"),
    }),
  ),
  {
    tool: "Edit",
    input: {
      file_path: "/repo/app/settings.py",
      old_string: "    if raw_config.get('strict_mode') is None:",
      new_string: "    if raw_config.get('strict_mode', False) is None:",
    },
    output: "updated",
  },
];

describe("turnFacts: where the needed facts stand in the returned body", () => {
  const prompts = new PromptTokens();
  const reader = new BodyReader();
  const turns = sessionTurns("openai", steps);
  // Turn 5 holds the Read and four reports; its next action edits a line of the Read.
  const received = turns[4] as string;
  const next = turns[5] as string;

  function measure(returned: string, stash: SessionStash, provider: Provider = "openai") {
    return turnFacts({
      provider,
      received,
      next,
      returned,
      promptTokens: prompts.of(provider, returned).length,
      prices: ownPrices(provider),
      stash,
      reader,
      tokens: (text) => prompts.count(text),
    });
  }

  it("sees every fact of a body returned as it came (bypass), and charges no recovery", async () => {
    const found = await measure(received, NOTHING_STASHED);
    expect(found.facts.map((item) => [item.fact.reference.text, item.state])).toEqual([
      ["/repo/app/settings.py", "visible"],
      ["if raw_config.get('strict_mode') is None:", "visible"],
      // The new line's identifiers, from the Read.
      ["raw_config", "visible"],
      ["strict_mode", "visible"],
    ]);
    expect(found.recovery).toBe(0);
  });

  describe.each([
    ["reversible", "marker", "textclean"],
    ["clean", "lost", "mask"],
  ] as const)("a cold turn whose mask hid the Read, %s mode", (mode: Mode, state, redrawn) => {
    let app: BenchApp;
    beforeAll(async () => {
      app = await BenchApp.start(mode, undefined);
    });
    afterAll(async () => {
      await app.close();
    });

    it(`counts the edited line ${state === "marker" ? "behind a marker" : "lost"}, hidden by mask, with its recovery`, async () => {
      const session = `facts-${mode}`;
      const answer = await app.compact(received, session, { "x-context-guru-cache": "cold" });
      const found = await measure(answer.text, app.stash(session));
      // The path stays visible (the Read call and mask's note name it); the rest was the Read's.
      expect(found.facts.map((item) => [item.fact.reference.text, item.state])).toEqual([
        ["/repo/app/settings.py", "visible"],
        ["if raw_config.get('strict_mode') is None:", state],
        ["raw_config", state],
        ["strict_mode", state],
      ]);
      const line = found.facts[1];
      expect(line).toMatchObject({
        hiddenBy: "mask",
        holder: { kind: "output", output: 0, tool: "Read" },
      });
      expect(found.facts.slice(2).map((item) => item.hiddenBy)).toEqual(["mask", "mask"]);
      const prompt = prompts.of("openai", answer.text).length;
      const original = prompts.count(line?.holder.text ?? "");
      expect(found.recovery).toBeCloseTo(0.1 * prompt + 1 * original, 9);
    });

    it(`names what dropped a fact before mask stashed the output: ${redrawn}`, async () => {
      // A progress line redrawn with \r: textclean keeps its last frame, then mask hides it.
      const download: Step = {
        tool: "Bash",
        input: { command: "./fetch.sh" },
        output: Array.from(
          { length: 30 },
          (_, index) => `chunk ${index}: progress 1250/9999 kB\rchunk ${index}: 9999/9999 kB done`,
        ).join("\n"),
      };
      const resume: Step = {
        tool: "Bash",
        input: { command: "./fetch.sh --from 1250" },
        output: "",
      };
      const session = sessionTurns("openai", [download, ...steps.slice(1, 5), resume]);
      const answer = await app.compact(session[4] as string, `redrawn-${mode}`, {
        "x-context-guru-cache": "cold",
      });
      const found = await turnFacts({
        provider: "openai",
        received: session[4] as string,
        next: session[5] as string,
        returned: answer.text,
        promptTokens: 0,
        prices: ownPrices("openai"),
        stash: app.stash(`redrawn-${mode}`),
        reader,
        tokens: (text) => prompts.count(text),
      });
      // Expanding mask's marker gives the cleaned output back: the first frame is not in it.
      expect(
        found.facts.map((item) => [item.fact.reference.text, item.state, item.hiddenBy]),
      ).toEqual([
        ["./fetch.sh", "visible", undefined],
        ["1250", "lost", redrawn],
      ]);
    });
  });
});

describe("turnFacts: facts an earlier call held", () => {
  const written = "def strict_mode_of(raw_config):\n    return raw_config.get('strict_mode')";
  const write = (content: string): Step => ({
    tool: "Edit",
    input: { file_path: "/repo/app/modes.py", content },
    output: "written",
  });
  const test: Step = { tool: "Bash", input: { command: "make check" }, output: "1 failed" };
  const fix: Step = {
    tool: "Edit",
    input: {
      file_path: "/repo/app/modes.py",
      old_string: "    return raw_config.get('strict_mode')",
      new_string: "    return raw_config.get('strict_mode', False)",
    },
    output: "updated",
  };
  const received = sessionTurns("openai", [write(written), test, fix])[1] as string;
  const next = sessionTurns("openai", [write(written), test, fix])[2] as string;
  // The body as a component that hides call arguments (mask_calls, SPEC §5) returns it.
  const marker = "<<cg:0123456789abcdef>>";
  const returned = sessionTurns("openai", [write(`[2 lines sent earlier] ${marker}`), test])[1];

  it.each([
    ["with the original stashed", written, "marker"],
    ["with nothing stashed", undefined, "lost"],
  ])("finds a hidden call's line %s: %s", async (_, original, state) => {
    const found = await turnFacts({
      provider: "openai",
      received,
      next,
      returned: returned as string,
      promptTokens: 100,
      prices: ownPrices("openai"),
      stash: {
        original: async (id) => (id === "0123456789abcdef" ? original : undefined),
        decisions: async () => [[], []],
      },
      reader: new BodyReader(),
      tokens: (text) => text.length,
    });
    expect(
      found.facts.map((item) => [item.fact.reference.text, item.state, item.hiddenBy]),
    ).toEqual([
      ["/repo/app/modes.py", "visible", undefined],
      ["return raw_config.get('strict_mode')", state, "mask_calls"],
      ["raw_config", state, "mask_calls"],
      ["strict_mode", state, "mask_calls"],
    ]);
    // The call's arguments are written again: 0.1 of the prompt, the call's JSON at 1.
    const call = JSON.stringify({ file_path: "/repo/app/modes.py", content: written });
    expect(found.recovery).toBeCloseTo(0.1 * 100 + call.length, 9);
  });
});

describe("recoveryCost", () => {
  it.each([
    ["nothing hidden", 1000, [], { read: 0.1, write: 1.25 }, 0],
    [
      "Anthropic: a read of the prompt, a write of each original",
      1000,
      [200, 300],
      { read: 0.1, write: 1.25 },
      725,
    ],
    ["serving", 4000, [500], { read: 0.1, write: 1 }, 900],
  ])("%s", (_, prompt, originals, prices, expected) => {
    expect(recoveryCost(prompt, originals, prices)).toBeCloseTo(expected, 9);
  });
});

describe.skipIf(!hasSharedCorpus)("the agent corpus sent as it came", () => {
  it("shows every needed fact of every turn, in every shape", async () => {
    const sessions = replaySessions(loadCorpus(join(SHARED_CORPUS, "agent")));
    const reader = new BodyReader();
    const states: Record<string, number> = {};
    for (const session of [...sessions, ...responsesSessions(sessions)]) {
      for (const [index, turn] of session.turns.entries()) {
        const next = session.turns[index + 1];
        if (next === undefined) continue;
        const found = await turnFacts({
          provider: session.provider,
          received: turn,
          next,
          returned: turn,
          promptTokens: 0,
          prices: ownPrices(session.provider),
          stash: NOTHING_STASHED,
          reader,
          tokens: () => 0,
        });
        for (const item of found.facts) states[item.state] = (states[item.state] ?? 0) + 1;
      }
    }
    expect(Object.keys(states)).toEqual(["visible"]);
    expect(states.visible).toBeGreaterThan(300);
  });
});
