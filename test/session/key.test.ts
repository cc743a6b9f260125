import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { explicitSessionKey, sessionKey } from "../../src/session/key.js";
import { hasSharedCorpus, readShared } from "../support/shared-corpus.js";

const derived = (system: string, user: string) =>
  createHash("sha256").update(`${system}\0${user}`).digest("hex").slice(0, 16);
/** The namespace of an unusable explicit id. */
const hashed = (id: string) =>
  `sha256:${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;

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
    ["an unusable explicit id in its own namespace", openai, "has space", hashed("has space")],
    ["a too-long explicit id hashed", openai, "x".repeat(129), hashed("x".repeat(129))],
    ["an e-mail address hashed", openai, "alice@example.com", hashed("alice@example.com")],
    ["a path hashed", openai, "tenant/A", hashed("tenant/A")],
    ["128 characters as they are", openai, "x".repeat(128), "x".repeat(128)],
    [
      "an unusable header over a usable metadata.user_id",
      { ...openai, metadata: { user_id: "user_42" } },
      "tenant/A",
      hashed("tenant/A"),
    ],
    [
      "an unusable metadata.user_id hashed",
      { ...openai, metadata: { user_id: "bob@example.com" } },
      undefined,
      hashed("bob@example.com"),
    ],
    ["an empty header as none", openai, "", derived("sys", "goal")],
    [
      "a metadata.user_id that is no string as none",
      { ...openai, metadata: { user_id: 42 } },
      undefined,
      derived("sys", "goal"),
    ],
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

  it("never lets two unusable ids share a session, nor a derived key stand for them", () => {
    const ids = ["alice@example.com", "bob@example.com", "tenant/A", "tenant/B", "y".repeat(200)];
    const keys = ids.map((id) => sessionKey(openai, id));
    expect(new Set(keys).size).toBe(ids.length);
    expect(keys).not.toContain(sessionKey(openai));
  });

  it("maps to a key that is itself usable, so sending it back lands in the same session", () => {
    const key = explicitSessionKey("alice@example.com") as string;
    expect(key).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(explicitSessionKey(key)).toBe(key);
    expect(sessionKey(openai, key)).toBe(sessionKey(openai, "alice@example.com"));
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
