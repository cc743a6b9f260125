import { describe, expect, it } from "vitest";
import { responseProblem, sseEvents } from "../../scripts/e2e-agents/checks/streams.js";
import { anthropicStream } from "../../scripts/e2e-agents/model/anthropic-wire.js";
import { responsesStream } from "../../scripts/e2e-agents/model/responses-wire.js";

const SSE = "text/event-stream";
const anthropic = anthropicStream({
  id: "msg_1",
  model: "m",
  blocks: [
    { type: "thinking", thinking: "plan", signature: "c2ln" },
    { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
  ],
  usage: {
    input_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 3,
    output_tokens: 2,
  },
});
const responses = responsesStream({
  id: "resp_1",
  model: "m",
  createdAt: 1,
  items: [
    { type: "reasoning", id: "rs_1", encrypted_content: "gAAA" },
    {
      type: "function_call",
      id: "fc_1",
      call_id: "c1",
      name: "exec_command",
      arguments: '{"cmd":"ls"}',
    },
  ],
  usage: { input_tokens: 5, cached_tokens: 3, output_tokens: 2 },
});

describe("well-formed responses", () => {
  it("reads an event stream's events", () => {
    expect(sseEvents("event: a\ndata: 1\n\ndata: 2\ndata: 3\n\n")).toEqual([
      { event: "a", data: "1" },
      { event: undefined, data: "2\n3" },
    ]);
  });

  it("accepts the streams the APIs send, and JSON bodies that parse", () => {
    expect(responseProblem("anthropic", SSE, anthropic)).toBeUndefined();
    expect(responseProblem("responses", SSE, responses)).toBeUndefined();
    expect(responseProblem("anthropic", "application/json", '{"type":"message"}')).toBeUndefined();
  });

  it.each([
    [
      "a stream cut before its end",
      anthropic.slice(0, anthropic.indexOf("event: message_delta")),
      "ends with content_block_stop",
    ],
    [
      "a block never stopped",
      anthropic.replace(/event: content_block_stop\ndata: \{[^\n]*"index":1\}\n\n/, ""),
      "content blocks left open: 1",
    ],
    [
      "an event whose data does not parse",
      anthropic.replace('"type":"ping"}', '"type":"ping"'),
      "event 2 (ping): data does not parse",
    ],
    [
      "an event named otherwise than its type",
      anthropic.replace("event: ping", "event: pong"),
      "event 2: named pong but of type ping",
    ],
  ])("finds %s", (_name, body, problem) => {
    expect(responseProblem("anthropic", SSE, body)).toBe(problem);
  });

  it("streams each Responses item as the API does: added, its deltas and done events, done", () => {
    expect(sseEvents(responses).map((event) => event.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const patch = responsesStream({
      id: "resp_2",
      model: "m",
      createdAt: 1,
      items: [
        {
          type: "custom_tool_call",
          id: "ctc_1",
          call_id: "c2",
          name: "apply_patch",
          input: "*** Begin Patch",
        },
      ],
      usage: { input_tokens: 1, cached_tokens: 0, output_tokens: 1 },
    });
    expect(
      sseEvents(patch)
        .map((event) => event.event)
        .slice(2, -1),
    ).toEqual([
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
    ]);
  });

  it("finds a Responses stream without its completion, and a JSON body that does not parse", () => {
    const cut = responses.slice(0, responses.indexOf("event: response.completed"));
    expect(responseProblem("responses", SSE, cut)).toBe("ends with response.output_item.done");
    expect(responseProblem("responses", "application/json", '{"id":')).toBe(
      "the JSON body does not parse",
    );
  });
});
