import { describe, expect, it } from "vitest";
import { missPlaceholder } from "../../src/expand/continuation.js";
import type { AssistantTurn } from "../../src/expand/turn.js";
import { wireShape } from "../../src/wire/registry.js";

const openaiTurn: AssistantTurn = {
  message: { role: "assistant", content: null, tool_calls: [{ id: "c1" }, { id: "c2" }] },
  toolUses: [],
};
const anthropicTurn: AssistantTurn = {
  message: { role: "assistant", content: [{ type: "tool_use", id: "t1" }] },
  toolUses: [],
};
const results = [
  { callId: "c1", content: "original\ntext" },
  { callId: "c2", content: missPlaceholder("ffff") },
];

describe("each chat shape's continuation", () => {
  it.each([
    [
      "openai",
      openaiTurn,
      '{"model":"m", "messages": [ {"role":"user","content":"hi"} ] ,"n":1.0}',
      '{"model":"m", "messages": [ {"role":"user","content":"hi"} ,{"role":"assistant","content":null,"tool_calls":[{"id":"c1"},{"id":"c2"}]},{"role":"tool","tool_call_id":"c1","content":"original\\ntext"},{"role":"tool","tool_call_id":"c2","content":"[expand: original for id ffff is no longer available]"}] ,"n":1.0}',
    ],
    [
      "anthropic",
      anthropicTurn,
      '{"messages":[]}',
      '{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"original\\ntext"},{"type":"tool_result","tool_use_id":"c2","content":"[expand: original for id ffff is no longer available]"}]}]}',
    ],
  ] as const)("%s: appends the turn and one result per call", (provider, turn, text, expected) => {
    expect(wireShape(provider).continuation(text, turn, results)).toBe(expected);
  });

  it.each(['{"model":"m"}', '{"messages":{}}', "[1]", "{oops"])(
    "gives undefined without a messages array: %s",
    (text) => {
      expect(wireShape("openai").continuation(text, openaiTurn, results)).toBeUndefined();
    },
  );
});
