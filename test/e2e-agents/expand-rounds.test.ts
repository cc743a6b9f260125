import { describe, expect, it } from "vitest";
import { expandLeaks, expandRounds } from "../../scripts/e2e-agents/checks/expand.js";
import { fateOf, originalBehind } from "../../scripts/e2e-agents/checks/outputs.js";
import { readRequest } from "../../scripts/e2e-agents/conversation.js";
import { buildTurns } from "../../scripts/e2e-agents/turns.js";
import { anthropicBody, exchange, toolTurn, upstream, userPrompt } from "./fixtures.js";

const ORIGINAL = Array.from({ length: 5000 }, (_, index) => String(index + 1)).join("\n");
const REDUCED = "1\n2\n… (4996 lines omitted) <<cg:0123456789abcdef>>\n4999\n5000";
const expandCall = {
  role: "assistant",
  content: [
    {
      type: "tool_use",
      id: "toolu_e2e_expand_1",
      name: "context_guru_expand",
      input: { id: "0123456789abcdef" },
    },
  ],
};
const expandResult = (text: string) => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: "toolu_e2e_expand_1", content: text }],
});

function session(answer: string | undefined) {
  const client = anthropicBody([userPrompt, ...toolTurn("toolu_e2e_m04", ORIGINAL)]);
  const forwarded = anthropicBody(
    [userPrompt, ...toolTurn("toolu_e2e_m04", REDUCED)],
    ["Bash", "context_guru_expand"],
  );
  const rounds = [
    upstream("E001", forwarded, {
      plan: { kind: "expand", markerId: "0123456789abcdef" },
      expandCall: "toolu_e2e_expand_1",
    }),
  ];
  if (answer !== undefined) {
    rounds.push(
      upstream("E001", {
        ...forwarded,
        messages: [...forwarded.messages, expandCall, expandResult(answer)],
      }),
    );
  }
  return buildTurns([exchange("E001", client)], rounds);
}

describe("expand round trips", () => {
  it("passes when the continuation answers with the client's original, byte for byte", () => {
    const [round] = expandRounds(session(ORIGINAL));
    expect(round).toMatchObject({
      markerId: "0123456789abcdef",
      ok: true,
      detail: `${ORIGINAL.length} chars, identical`,
    });
  });

  it.each([
    ["a line ending changed", `${ORIGINAL.slice(0, 100)}\r\n${ORIGINAL.slice(101)}`, 100],
    [
      "one character changed, the length the same",
      `${ORIGINAL.slice(0, 200)}x${ORIGINAL.slice(201)}`,
      200,
    ],
  ])("fails with where the answer differs from the original: %s", (_name, answer, at) => {
    const [round] = expandRounds(session(answer));
    expect(round?.ok).toBe(false);
    expect(round?.detail).toMatch(new RegExp(`^differs from the client's original at char ${at} `));
  });

  it("fails when the service gave back the model's call without continuing", () => {
    expect(expandRounds(session(undefined))).toMatchObject([
      { ok: false, detail: "the service did not continue (no next round)" },
    ]);
  });

  it("finds a response to the client that names the expand tool", () => {
    const [turn] = session(ORIGINAL);
    expect(expandLeaks([turn!])).toEqual([]);
    const leaked = {
      ...turn!,
      exchange: { ...turn!.exchange, responseBody: '{"name":"context_guru_expand"}' },
    };
    expect(expandLeaks([leaked])).toEqual([leaked]);
  });
});

describe("what became of a tool output", () => {
  it.each([
    ["unchanged", ORIGINAL, ORIGINAL],
    ["marked", ORIGINAL, REDUCED],
    ["unmarked", ORIGINAL, "1\n2\n… (4996 lines omitted)\n4999\n5000"],
    ["repacked", "src/a.ts:1:x\nsrc/a.ts:2:y", "src/a.ts\n 1:x\n 2:y"],
    ["unmarked", "test one ok\ntest two ok\nFAIL three", "… (2 passed tests)\nFAIL three"],
    ["unchanged", "… (2 quoted)", "… (2 quoted)"],
  ])("%s", (fate, sent, forwarded) => {
    expect(fateOf(sent, forwarded)).toBe(fate);
  });

  it("finds the client's output a marker stands for", () => {
    const client = readRequest(
      "anthropic",
      JSON.stringify(anthropicBody([userPrompt, ...toolTurn("t9", ORIGINAL)])),
    )!;
    const forwarded = readRequest(
      "anthropic",
      JSON.stringify(anthropicBody([userPrompt, ...toolTurn("t9", REDUCED)])),
    )!;
    expect(originalBehind("0123456789abcdef", client, forwarded)).toMatchObject({
      callId: "t9",
      text: ORIGINAL,
    });
    expect(originalBehind("ffffffffffffffff", client, forwarded)).toBeUndefined();
  });
});
