import { describe, expect, it } from "vitest";
import { agentCompactionHeader, isAgentCompaction } from "../../src/session/agent-compaction.js";
import { isRecord } from "../../src/wire/is-record.js";
import { wireShape } from "../../src/wire/registry.js";

const body = (...messages: unknown[]) => ({ messages });

/** The conversation of a test body and the shape it is read as. */
function recognised(request: unknown): boolean {
  if (!isRecord(request)) return false;
  if (Array.isArray(request.input)) return isAgentCompaction(wireShape("responses"), request.input);
  return (
    Array.isArray(request.messages) && isAgentCompaction(wireShape("anthropic"), request.messages)
  );
}

describe("the agent's own compaction (§4a)", () => {
  it.each([
    [
      "Claude Code's compaction prompt",
      body({
        role: "user",
        content:
          "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests.",
      }),
      true,
    ],
    [
      "a summary request in a text block after tool results",
      body({
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t", content: "ok" },
          { type: "text", text: "Please summarize this conversation." },
        ],
      }),
      true,
    ],
    [
      "a later assistant message does not hide the last user message",
      body(
        { role: "user", content: "Write a comprehensive summary of our entire conversation." },
        { role: "assistant", content: "" },
      ),
      true,
    ],
    [
      "a summary of a file",
      body({ role: "user", content: "Give me a detailed summary of this file." }),
      false,
    ],
    [
      "an older summary request",
      body(
        { role: "user", content: "Summarize the conversation." },
        { role: "user", content: "Now fix the bug." },
      ),
      false,
    ],
    [
      "the words only inside a tool result",
      body({
        role: "user",
        content: [{ type: "tool_result", content: "summarize the conversation" }],
      }),
      false,
    ],
    [
      "a Responses user message item after tool outputs",
      {
        input: [
          { type: "function_call_output", call_id: "c", output: "summarize the conversation" },
          {
            type: "message",
            role: "user",
            content: [
              { type: "input_text", text: "Write a detailed summary of the conversation." },
            ],
          },
        ],
      },
      true,
    ],
    [
      "the words only inside a Responses tool output",
      {
        input: [
          { type: "function_call_output", call_id: "c", output: "summarize the conversation" },
        ],
      },
      false,
    ],
    [
      "Codex's context checkpoint prompt",
      {
        input: [
          {
            type: "message",
            role: "user",
            content: [
              {
                type: "input_text",
                text: "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.",
              },
            ],
          },
        ],
      },
      true,
    ],
    [
      "a trailing compaction_trigger item",
      {
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "fix it" }] },
          { type: "compaction_trigger" },
        ],
      },
      true,
    ],
    [
      "a compaction item the history starts from is no request for one",
      {
        input: [
          { type: "compaction", encrypted_content: "gAAA" },
          { type: "message", role: "user", content: [{ type: "input_text", text: "go on" }] },
        ],
      },
      false,
    ],
    ["no messages", {}, false],
    ["not an object", "summarize the conversation", false],
  ])("%s → %s", (_, request, expected) => {
    expect(recognised(request)).toBe(expected);
  });

  it.each([
    ['{"turn_id":"t1","request_kind":"compaction"}', true],
    ['{"turn_id":"t1","request_kind":"turn"}', false],
    ['{"turn_id":"t1","request_kind":"prewarm"}', false],
    ['{"note":"compaction"}', false],
    ["compaction", false],
    [null, false],
  ])("Codex's turn metadata %s → %s", (header, expected) => {
    expect(agentCompactionHeader(header)).toBe(expected);
  });
});
