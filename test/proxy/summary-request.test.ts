import { describe, expect, it } from "vitest";
import { isSummaryRequest } from "../../src/proxy/summary-request.js";

const body = (...messages: unknown[]) => ({ messages });

describe("isSummaryRequest", () => {
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
    ["no messages", {}, false],
    ["not an object", "summarize the conversation", false],
  ])("%s → %s", (_, request, expected) => {
    expect(isSummaryRequest(request)).toBe(expected);
  });
});
