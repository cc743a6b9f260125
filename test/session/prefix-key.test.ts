import { describe, expect, it } from "vitest";
import { sessionKey } from "../../src/session/key.js";
import { prefixSessionKey, SESSION_WINDOW } from "../../src/session/prefix-key.js";
import { agentBodies, hasSharedCorpus, readShared } from "../support/shared-corpus.js";

/** The session key of a body read only up to its first SESSION_WINDOW characters. */
const windowKey = (body: string) => prefixSessionKey(body.slice(0, SESSION_WINDOW));
const keyOf = (body: string) => sessionKey(JSON.parse(body));
const log = (lines: number) =>
  Array.from({ length: lines }, (_, index) => `line ${index}: ok`).join("\n");
const messages = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: [{ type: "text", text: "Fix the failing test." }] },
  { role: "assistant", content: "Running it.", tool_calls: [] },
  { role: "tool", tool_call_id: "c1", content: log(4000) },
];

describe("prefixSessionKey", () => {
  it.each([
    ["a chat body", JSON.stringify({ model: "m", messages, tools: [{ type: "function" }] })],
    [
      "an Anthropic body, system first",
      JSON.stringify({ model: "m", max_tokens: 4096, system: "sys", messages: messages.slice(1) }),
    ],
    [
      "metadata.user_id before the messages",
      JSON.stringify({ metadata: { user_id: "user_7" }, messages }),
    ],
    [
      "a Responses body",
      JSON.stringify({
        model: "m",
        instructions: "Be brief.",
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
          { type: "function_call_output", call_id: "c1", output: log(4000) },
        ],
      }),
    ],
    ["an indented body", JSON.stringify({ temperature: 0.5, stream: true, messages }, null, 2)],
  ])("is the compactor's key for %s, however much of it is read", (_name, body) => {
    const cuts = [body.length, 60_000, 4_000, 1_000].filter((cut) => cut <= body.length);
    expect(cuts.map((cut) => prefixSessionKey(body.slice(0, cut)))).toEqual(
      cuts.map(() => keyOf(body)),
    );
  });

  it("never reads past the conversation: metadata after it gives every turn the derived key", () => {
    const turn = (outputs: number) =>
      JSON.stringify({ messages: messages.slice(0, outputs + 2), metadata: { user_id: "u" } });
    expect([windowKey(turn(0)), windowKey(turn(2))]).toEqual([
      keyOf(JSON.stringify({ messages })),
      keyOf(JSON.stringify({ messages })),
    ]);
  });

  it.each([
    ["not JSON", "hello"],
    ["an array", "[1,2]"],
    ["no conversation", JSON.stringify({ model: "m", tools: [] })],
    ["a conversation beyond what was read", JSON.stringify({ tools: [log(9000)], messages })],
    ["a cut inside the first key", '{"mess'],
  ])("is undefined for %s", (_name, body) => {
    expect(windowKey(body)).toBeUndefined();
  });

  it.skipIf(!hasSharedCorpus)(
    "gives the turns of one captured conversation one key, and two conversations two",
    () => {
      const heads = JSON.parse(readShared("reference/session_head_agentsdk.json")) as Record<
        string,
        unknown
      >;
      const keys = Object.entries(heads).map(([name, body]) => {
        const text = JSON.stringify(body);
        return [name, windowKey(text), keyOf(text)];
      });
      const [a1, a2, a3, b1, b2] = keys.map(([, key]) => key);
      expect({
        exact: keys.every(([, key, exact]) => key === exact),
        a: new Set([a1, a2, a3]).size,
        b: new Set([b1, b2]).size,
        apart: a1 !== b1,
      }).toEqual({ exact: true, a: 1, b: 1, apart: true });
    },
  );

  it.skipIf(!hasSharedCorpus)("is the compactor's key for every agent body of the corpus", () => {
    const bodies = agentBodies();
    const keys = bodies.map((entry) => ({ entry, key: windowKey(entry.body) }));
    expect({
      differ: keys
        .filter(({ entry, key }) => key !== keyOf(entry.body))
        .map(({ entry }) => entry.file),
      // A captured session has the same system and first user text in both shapes.
      keys: new Set(keys.map(({ key }) => key)).size,
    }).toEqual({ differ: [], keys: new Set(bodies.map((entry) => entry.session)).size });
  });
});
