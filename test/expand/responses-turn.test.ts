import { describe, expect, it } from "vitest";
import { missPlaceholder } from "../../src/expand/continuation.js";
import { parseJsonResponse } from "../../src/expand/parse-json.js";
import type { ResponseTurn } from "../../src/expand/turn.js";
import { wireShape } from "../../src/wire/registry.js";
import { type CallSpec, expandCall } from "../support/model-replies.js";
import {
  type ItemSpec,
  REASONING_RAW,
  responsesEvents,
  responsesJson,
} from "../support/responses-replies.js";
import type { ScriptedEvent } from "../support/scripted-upstream.js";
import { readStream } from "../support/stream-read.js";

const expand = expandCall("abcdef0123456789", "call_1");
const bash = { id: "call_2", name: "bash", input: { command: "ls" } };
const reasoning: ItemSpec = { type: "reasoning", raw: REASONING_RAW };
const call = (spec: CallSpec): ItemSpec => ({ type: "call", ...spec });
const CALL_RAW =
  '{"type":"function_call","id":"fc_1","call_id":"call_1","name":"context_guru_expand","arguments":"{\\"id\\":\\"abcdef0123456789\\"}","status":"completed"}';

const read = (events: readonly ScriptedEvent[]) => readStream("responses", events);

const jsonTurn = (specs: readonly ItemSpec[], change: (body: string) => string = (b) => b) => {
  const text = change(responsesJson(specs).body ?? "");
  return parseJsonResponse(wireShape("responses"), JSON.parse(text), text);
};

describe("Responses turns", () => {
  const turn: ResponseTurn = {
    items: [REASONING_RAW, CALL_RAW],
    responseId: "resp_1",
    toolUses: [
      { callId: "call_1", name: "context_guru_expand", input: { id: "abcdef0123456789" } },
    ],
  };

  it("reads a JSON response's items as written, and its calls", () => {
    expect(jsonTurn([reasoning, call(expand)])).toEqual(turn);
  });

  it.each([
    ["incomplete", (body: string) => body.replace('"completed"', '"incomplete"')],
    [
      "no output array",
      (body: string) => body.replace('"output":[', '"output":{"x":[').replace("],", "]},"),
    ],
  ])("gives no turn for a response that is %s", (_, change) => {
    expect(jsonTurn([call(expand)], change)).toBeUndefined();
  });

  it("counts a built-in tool call as another tool under its type", () => {
    const search = { type: "web_search_call", id: "ws_1", status: "completed" };
    expect(jsonTurn([{ type: "builtin", item: search }])?.toolUses).toEqual([
      { callId: "ws_1", name: "web_search_call", input: undefined },
    ]);
  });

  it.each([
    ["reasoning, then expand", [reasoning, call(expand)], "expand", 5],
    ["text first", [{ type: "text", text: "Hi there" } as ItemSpec, call(expand)], "through", 4],
    ["another tool first", [call(bash), call(expand)], "through", 3],
    ["nothing but reasoning", [reasoning], "through", 5],
  ] as const)("a stream of %s opens %s", (_, specs, opening, after) => {
    expect(read(responsesEvents(specs))).toMatchObject({ opening, decidedAfter: after });
  });

  it("aggregates a stream into the completed response's items as written", () => {
    expect(read(responsesEvents([reasoning, call(expand)])).turn).toEqual(turn);
  });

  it("takes the items as each was done when the completed response lists none", () => {
    const events = responsesEvents([reasoning, call(expand)]).map((event) =>
      typeof event.data === "string" && event.event === "response.completed"
        ? {
            ...event,
            data: event.data.replace(/"output":\[.*\],"parallel/, '"output":[],"parallel'),
          }
        : event,
    );
    expect(read(events).turn).toEqual(turn);
  });

  it.each([
    ["cut off before response.completed", responsesEvents([call(expand)]).slice(0, -1)],
    [
      "failed",
      [...responsesEvents([call(expand)]).slice(0, -1), { data: { type: "response.failed" } }],
    ],
    ["an error event", [{ event: "error", data: { type: "error", message: "boom" } }]],
  ])("gives no turn for a stream %s", (_, events) => {
    expect(read(events).turn).toBeUndefined();
  });
});

describe("Responses continuation", () => {
  const turn: ResponseTurn = {
    items: [REASONING_RAW, CALL_RAW],
    responseId: "resp_1",
    toolUses: [],
  };
  const results = [
    { callId: "call_1", content: "original\ntext" },
    { callId: "call_2", content: missPlaceholder("ffff") },
  ];
  const outputs =
    '{"type":"function_call_output","call_id":"call_1","output":"original\\ntext"},{"type":"function_call_output","call_id":"call_2","output":"[expand: original for id ffff is no longer available]"}';

  it.each([
    [
      "appends the items and one output per call to input",
      '{"model":"m", "input": [ {"role":"user","content":"hi"} ] ,"store":false}',
      `{"model":"m", "input": [ {"role":"user","content":"hi"} ,${REASONING_RAW},${CALL_RAW},${outputs}] ,"store":false}`,
    ],
    [
      "turns an input string into the user message it stands for",
      '{"input":"hi\\u0021","tools":[]}',
      `{"input":[{"role":"user","content":"hi\\u0021"},${REASONING_RAW},${CALL_RAW},${outputs}],"tools":[]}`,
    ],
    [
      "chains on the response id, sending only the outputs",
      '{"previous_response_id":"resp_0","input":[{"role":"user","content":"hi"}],"n":1.0}',
      `{"previous_response_id":"resp_1","input":[${outputs}],"n":1.0}`,
    ],
    [
      "chains when store is true",
      '{"store":true,"input":[],"previous_response_id":"resp_0"}',
      `{"store":true,"input":[${outputs}],"previous_response_id":"resp_1"}`,
    ],
    [
      "carries the items when the response will not be stored",
      '{"store":false,"input":[],"previous_response_id":"resp_0"}',
      `{"store":false,"input":[${REASONING_RAW},${CALL_RAW},${outputs}],"previous_response_id":"resp_0"}`,
    ],
    [
      "carries the items when previous_response_id is null",
      '{"previous_response_id":null,"input":[]}',
      `{"previous_response_id":null,"input":[${REASONING_RAW},${CALL_RAW},${outputs}]}`,
    ],
  ])("%s", (_, text, expected) => {
    expect(wireShape("responses").continuation(text, turn, results)).toBe(expected);
  });

  it.each([
    ["no input", '{"model":"m"}', turn],
    ["input neither array nor string", '{"input":{}}', turn],
    [
      "a chain without a response id",
      '{"previous_response_id":"r","input":[]}',
      { ...turn, responseId: undefined },
    ],
    ["not JSON", "{oops", turn],
  ])("gives undefined for %s", (_, text, given) => {
    expect(wireShape("responses").continuation(text, given, results)).toBeUndefined();
  });
});
