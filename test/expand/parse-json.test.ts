import { describe, expect, it } from "vitest";
import { parseJsonResponse } from "../../src/expand/parse-json.js";
import { wireShape } from "../../src/wire/registry.js";

const call = (id: string, name: string, args: string) => ({
  id,
  type: "function",
  function: { name, arguments: args },
});
const openai = (message: unknown) => ({ choices: [{ index: 0, message, finish_reason: "stop" }] });

describe("parseJsonResponse", () => {
  it.each([
    [
      "OpenAI text",
      openai({ role: "assistant", content: "hi", refusal: null }),
      { message: { role: "assistant", content: "hi" }, toolUses: [] },
    ],
    [
      "OpenAI tool calls, arguments parsed, a broken one undefined",
      openai({
        role: "assistant",
        content: null,
        tool_calls: [call("c1", "context_guru_expand", '{"id":"ab"}'), call("c2", "bash", "{oops")],
      }),
      {
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            call("c1", "context_guru_expand", '{"id":"ab"}'),
            call("c2", "bash", "{oops"),
          ],
        },
        toolUses: [
          { callId: "c1", name: "context_guru_expand", input: { id: "ab" } },
          { callId: "c2", name: "bash", input: undefined },
        ],
      },
    ],
  ])("reads %s", (_, body, turn) => {
    expect(parseJsonResponse(wireShape("openai"), body)).toEqual(turn);
  });

  it("reads Anthropic content blocks as they are", () => {
    const content = [
      { type: "thinking", thinking: "hmm", signature: "sig" },
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "t1", name: "context_guru_expand", input: { id: "ab" } },
    ];
    expect(
      parseJsonResponse(wireShape("anthropic"), { type: "message", role: "assistant", content }),
    ).toEqual({
      message: { role: "assistant", content },
      toolUses: [{ callId: "t1", name: "context_guru_expand", input: { id: "ab" } }],
    });
  });

  it.each([
    ["openai", { choices: [] }],
    ["openai", { choices: [{ message: { content: "a" } }, { message: { content: "b" } }] }],
    ["openai", openai({ role: "assistant", tool_calls: [{ id: "c1" }] })],
    ["openai", { error: { message: "x" } }],
    ["anthropic", { type: "error", error: {} }],
    ["anthropic", { role: "assistant", content: [{ type: "tool_use", name: "x" }] }],
    ["anthropic", "text"],
  ] as const)("gives undefined for an unusable %s body %j", (provider, body) => {
    expect(parseJsonResponse(wireShape(provider), body)).toBeUndefined();
  });
});
