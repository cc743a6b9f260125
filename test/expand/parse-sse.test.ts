import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StreamOpening } from "../../src/expand/stream-aggregator.js";
import {
  anthropicEvents,
  type BlockSpec,
  expandCall,
  openaiEvents,
} from "../support/model-replies.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";
import type { ScriptedEvent } from "../support/scripted-upstream.js";
import { readStream } from "../support/stream-read.js";

const read = readStream;

const expand = expandCall("abcdef0123456789", "call_1");
const bash = { id: "call_2", name: "bash", input: { command: "ls" } };

describe("OpenAI stream aggregation", () => {
  it.each([
    ["text first", openaiEvents(["Hello"]), "through", 2],
    ["whitespace, then expand", openaiEvents(["\n"], [expand]), "expand", 3],
    ["expand first", openaiEvents([], [expand]), "expand", 2],
    ["another tool first", openaiEvents([], [bash, expand]), "through", 2],
    ["nothing but a finish", openaiEvents([]), "through", 2],
  ] as const)("%s opens %s", (_, events, opening, after) => {
    expect(read("openai", events)).toMatchObject({ opening, decidedAfter: after });
  });

  it("aggregates tool calls from argument pieces", () => {
    expect(read("openai", openaiEvents([], [expand, bash])).turn).toEqual({
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "context_guru_expand", arguments: '{"id":"abcdef0123456789"}' },
          },
          {
            id: "call_2",
            type: "function",
            function: { name: "bash", arguments: '{"command":"ls"}' },
          },
        ],
      },
      toolUses: [
        { callId: "call_1", name: "context_guru_expand", input: { id: "abcdef0123456789" } },
        { callId: "call_2", name: "bash", input: { command: "ls" } },
      ],
    });
  });

  it("waits for a tool name that arrives in pieces", () => {
    const chunk = (name: string) => ({
      data: {
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index: 0, ...(name === "context_" ? { id: "c" } : {}), function: { name } },
              ],
            },
          },
        ],
      },
    });
    expect(read("openai", [chunk("context_"), chunk("guru_expand")])).toMatchObject({
      opening: "expand",
      decidedAfter: 2,
    });
  });

  it.each([
    ["cut off before its finish_reason", openaiEvents([], [expand]).slice(0, 3)],
    ["a second choice", [{ data: { choices: [{ index: 1, delta: { content: "x" } }] } }]],
    ["an error chunk", [{ data: { error: { message: "overloaded" } } }]],
    ["data that is not JSON", [{ data: "{oops" }]],
  ])("cannot aggregate %s", (_, events) => {
    expect(read("openai", events).turn).toBeUndefined();
  });
});

describe("Anthropic stream aggregation", () => {
  const thinking: BlockSpec = {
    type: "thinking",
    thinking: "Need the original.",
    signature: "sig==",
  };
  const tool = (call: typeof expand): BlockSpec => ({ type: "tool_use", ...call });

  it.each([
    ["text first", [{ type: "text", text: "Hello" }], "through", 4],
    ["thinking, then expand", [thinking, tool(expand)], "expand", 8],
    ["whitespace text, then expand", [{ type: "text", text: " " }, tool(expand)], "expand", 6],
    ["another tool first", [tool(bash), tool(expand)], "through", 3],
  ] as const)("%s opens %s", (_, blocks, opening: StreamOpening, after) => {
    expect(read("anthropic", anthropicEvents(blocks))).toMatchObject({
      opening,
      decidedAfter: after,
    });
  });

  it("aggregates thinking with its signature, text and tool input from partial JSON", () => {
    const blocks: BlockSpec[] = [thinking, { type: "text", text: "Looking." }, tool(expand)];
    expect(read("anthropic", anthropicEvents(blocks)).turn).toEqual({
      message: { role: "assistant", content: blocks },
      toolUses: [
        { callId: "call_1", name: "context_guru_expand", input: { id: "abcdef0123456789" } },
      ],
    });
  });

  it("drops an empty text block, which the API does not accept back", () => {
    const blocks: BlockSpec[] = [{ type: "text", text: "" }, tool(expand)];
    expect(read("anthropic", anthropicEvents(blocks)).turn).toMatchObject({
      message: { role: "assistant", content: [tool(expand)] },
    });
  });

  it.each([
    ["cut off before message_stop", anthropicEvents([tool(expand)]).slice(0, -1)],
    [
      "an error event",
      [{ event: "error", data: { type: "error", error: { type: "overloaded_error" } } }],
    ],
    [
      "an unknown block type",
      [
        {
          data: {
            type: "content_block_start",
            index: 0,
            content_block: { type: "server_tool_use" },
          },
        },
      ],
    ],
    [
      "a delta for a block that never started",
      [
        {
          data: { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "x" } },
        },
      ],
    ],
  ])("cannot aggregate %s", (_, events) => {
    const result = read("anthropic", events);
    expect(result.turn).toBeUndefined();
  });
});

/** A text block that starts with `start`'s fields, then takes `deltas`, in a whole stream. */
function textBlockEvents(
  start: Record<string, unknown>,
  deltas: readonly Record<string, unknown>[],
): ScriptedEvent[] {
  const event = (type: string, data: Record<string, unknown> = {}): ScriptedEvent => ({
    event: type,
    data: { type, ...data },
  });
  return [
    event("message_start", { message: { id: "msg_1", role: "assistant", content: [] } }),
    event("content_block_start", { index: 0, content_block: { type: "text", ...start } }),
    ...deltas.map((delta) => event("content_block_delta", { index: 0, delta })),
    event("content_block_stop", { index: 0 }),
    event("message_delta", { delta: { stop_reason: "end_turn" } }),
    event("message_stop"),
  ];
}

describe("Anthropic citations", () => {
  it("gathers a text block's citations: those it started with, then each delta's, in order", () => {
    // Values as JSON gives them back (no -0).
    const citation = fc.oneof(
      fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown),
      fc.constant({ type: "char_location", cited_text: "x" }),
    );
    const delta = fc.oneof(
      citation.map((value) => ({ type: "citations_delta", citation: value })),
      fc.string({ minLength: 1 }).map((text) => ({ type: "text_delta", text })),
    );
    const started = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.array(citation, { maxLength: 3 }),
      fc.dictionary(fc.string(), citation),
    );
    fc.assert(
      fc.property(started, fc.array(delta, { maxLength: 12 }), (initial, deltas) => {
        const cited = deltas.flatMap((each) => ("citation" in each ? [each.citation] : []));
        const texts = deltas.flatMap((each) => ("text" in each ? [each.text] : []));
        const start = { text: "a", ...(initial === undefined ? {} : { citations: initial }) };
        const block: Record<string, unknown> = { type: "text", ...start };
        block.text = ["a", ...texts].join("");
        if (cited.length > 0) {
          const before = Array.isArray(initial) ? initial : [];
          block.citations = [...before, ...cited];
        }
        const turn = read("anthropic", textBlockEvents(start, deltas)).turn;
        expect(turn).toEqual({ message: { role: "assistant", content: [block] }, toolUses: [] });
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  // Copied whole for each delta, the citations took time quadratic in their number: about a
  // minute for these.
  it("gathers 60,000 citations of one text block", () => {
    const citations = Array.from({ length: 60_000 }, (_, index) => ({
      type: "char_location",
      start_char_index: index,
    }));
    const deltas = citations.map((citation) => ({ type: "citations_delta", citation }));
    const turn = read("anthropic", textBlockEvents({ text: "cited" }, deltas)).turn;
    expect(turn).toEqual({
      message: { role: "assistant", content: [{ type: "text", text: "cited", citations }] },
      toolUses: [],
    });
  });
});
