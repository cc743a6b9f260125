import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sessionKey } from "../../src/session/key.js";
import { hasSharedCorpus, readShared } from "../support/shared-corpus.js";

const derived = (system: string, user: string) =>
  createHash("sha256").update(`${system}\0${user}`).digest("hex").slice(0, 16);

describe("sessionKey", () => {
  const openai = {
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: "goal" },
    ],
  };

  it.each([
    ["an explicit id", openai, "team-a:run.7", "team-a:run.7"],
    ["metadata.user_id", { ...openai, metadata: { user_id: "user_42" } }, undefined, "user_42"],
    ["the header over metadata", { ...openai, metadata: { user_id: "user_42" } }, "hdr", "hdr"],
    ["an unusable explicit id falls through", openai, "has space", derived("sys", "goal")],
    ["a too-long explicit id falls through", openai, "x".repeat(129), derived("sys", "goal")],
    ["OpenAI system + first user", openai, undefined, derived("sys", "goal")],
    [
      "Anthropic system blocks + first user text blocks",
      {
        system: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
        messages: [{ role: "user", content: [{ type: "text", text: "goal" }, { type: "image" }] }],
      },
      undefined,
      derived("a\nb", "goal"),
    ],
    [
      "a system message after the first user message",
      {
        messages: [
          { role: "user", content: "u" },
          { role: "system", content: "s" },
        ],
      },
      undefined,
      derived("s", "u"),
    ],
    ["no system", { messages: [{ role: "user", content: "u" }] }, undefined, derived("", "u")],
    ["not an object", "text", undefined, derived("", "")],
  ])("uses %s", (_, body, explicit, expected) => {
    expect(sessionKey(body, explicit)).toBe(expected);
  });

  it("is the same for every turn of one conversation (later turns only add messages)", () => {
    const turn2 = {
      messages: [
        ...openai.messages,
        { role: "assistant", content: "ok" },
        { role: "user", content: "next" },
      ],
    };
    expect(sessionKey(turn2)).toBe(sessionKey(openai));
  });

  it.skipIf(!hasSharedCorpus)(
    "stays stable across the turns of real agent-SDK conversations",
    () => {
      const heads = JSON.parse(readShared("reference/session_head_agentsdk.json")) as Record<
        string,
        unknown
      >;
      const keys = Object.fromEntries(
        Object.entries(heads).map(([name, body]) => [name, sessionKey(body)]),
      );
      expect(keys.conv_a_turn2).toBe(keys.conv_a_turn1);
      expect(keys.conv_a_turn3).toBe(keys.conv_a_turn1);
      expect(keys.conv_b_turn2).toBe(keys.conv_b_turn1);
      expect(keys.conv_b_turn1).not.toBe(keys.conv_a_turn1);
    },
  );
});
