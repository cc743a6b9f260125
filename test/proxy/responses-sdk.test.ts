import type OpenAI from "openai";
import { beforeEach, describe, expect, it } from "vitest";
import { type CallSpec, expandCall } from "../support/model-replies.js";
import {
  coldSessions,
  type Harness,
  MASKED_ID,
  openaiClient,
  responsesConversation,
  sharedHarness,
  toolOutput,
} from "../support/proxy-harness.js";
import {
  functionCallItem,
  type ItemSpec,
  REASONING_RAW,
  responsesEvents,
  responsesReply,
} from "../support/responses-replies.js";

type Json = Record<string, unknown> & { input: unknown[]; tools?: unknown[] };
type Body = OpenAI.Responses.ResponseCreateParamsNonStreaming;

const FINAL = "The bug is in module 0.";
const bash: CallSpec = { id: "call_ls", name: "bash", input: { command: "ls" } };
const reasoning: ItemSpec = { type: "reasoning", raw: REASONING_RAW };
const call = (spec: CallSpec): ItemSpec => ({ type: "call", ...spec });
const text = (value: string): ItemSpec => ({ type: "text", text: value });
const output = (callId: string, content: string) => ({
  type: "function_call_output",
  call_id: callId,
  output: content,
});

describe("Responses proxy with the official client", () => {
  const shared = sharedHarness();
  const session = coldSessions("responses");
  let harness: Harness;
  let client: OpenAI;
  beforeEach(() => {
    harness = shared.current;
    client = openaiClient(harness);
  });

  /** One `responses.create`, streaming or not: the text and the calls the client got. */
  async function create(streaming: boolean, body: Body = responsesConversation()) {
    if (!streaming) {
      const { data, response } = await client.responses.create(body, session()).withResponse();
      const calls = data.output.flatMap((item) =>
        item.type === "function_call" ? [item.name] : [],
      );
      return {
        text: data.output_text,
        calls,
        id: data.id,
        session: response.headers.get("x-context-guru-session"),
      };
    }
    const { data: stream, response } = await client.responses
      .create({ ...body, stream: true }, session())
      .withResponse();
    let streamed = "";
    let id = "";
    const calls: string[] = [];
    for await (const event of stream) {
      if (event.type === "response.created") id = event.response.id;
      if (event.type === "response.output_text.delta") streamed += event.delta;
      if (event.type === "response.output_item.added" && event.item.type === "function_call") {
        calls.push(event.item.name);
      }
    }
    return { text: streamed, calls, id, session: response.headers.get("x-context-guru-session") };
  }

  const requests = () => harness.upstream.requests.map((request) => request.json as Json);

  it.each([false, true])(
    "expands the marker the compaction wrote; the client sees only the final answer (stream %s)",
    async (streaming) => {
      const expand = expandCall(MASKED_ID);
      harness.upstream.reply(
        responsesReply(streaming, [reasoning, call(expand)], { id: "resp_a" }),
        responsesReply(streaming, [text(FINAL)], { id: "resp_b" }),
      );

      const result = await create(streaming);

      expect(result).toMatchObject({ text: FINAL, calls: [], id: "resp_b" });
      const [first, second] = requests();
      expect(harness.upstream.requests.map((request) => request.url)).toEqual([
        "/v1/responses",
        "/v1/responses",
      ]);
      expect(JSON.stringify(first?.input[2])).toContain(`<<cg:${MASKED_ID}>>`);
      expect(first?.tools?.map((tool) => (tool as { name: string }).name)).toEqual([
        "bash",
        "context_guru_expand",
      ]);
      expect(first?.tools?.[1]).toMatchObject({ type: "function", name: "context_guru_expand" });
      // The response's items go back into `input`, then the exact original for the call.
      expect(second?.input.slice(first?.input.length)).toEqual([
        JSON.parse(REASONING_RAW),
        functionCallItem(expand, 1),
        output(expand.id, toolOutput(0)),
      ]);
      const [firstBody = "", secondBody = ""] = harness.upstream.requests.map((r) => r.body);
      // The reasoning item reaches the upstream as it wrote it, escapes and all.
      expect(secondBody).toContain(`,${REASONING_RAW},`);
      // Round 2 is round 1 plus the appended items: every earlier byte unchanged.
      const close = firstBody.lastIndexOf("]", firstBody.indexOf('"tools"'));
      expect(secondBody.slice(0, close)).toBe(firstBody.slice(0, close));
      expect(secondBody.slice(secondBody.indexOf('"tools"'))).toBe(
        firstBody.slice(firstBody.indexOf('"tools"')),
      );
      // The expanded original stays verbatim on later turns.
      const { kept } = await harness.store.ledger(result.session ?? "");
      expect({ ...harness.events, kept: kept.has(MASKED_ID) }).toEqual({
        rounds: 1,
        resolved: 1,
        misses: 0,
        bails: [],
        responses: [{ provider: "responses", streamed: streaming }],
        kept: true,
      });
    },
  );

  it.each([false, true])(
    "expands on turn 2 the marker turn 1 wrote, the earlier items as sent (stream %s)",
    async (streaming) => {
      const headers = { "x-context-guru-session": `responses-turns-${streaming}` };
      const expand = expandCall(MASKED_ID);
      harness.upstream.reply(
        responsesReply(streaming, [text("Module 0 looks odd.")], { id: "resp_1" }),
        responsesReply(streaming, [reasoning, call(expand)], { id: "resp_2" }),
        responsesReply(streaming, [text(FINAL)], { id: "resp_3" }),
      );
      const first = responsesConversation();
      const second = responsesConversation();
      (second.input as OpenAI.Responses.ResponseInputItem[]).push(
        { type: "message", role: "assistant", content: "Module 0 looks odd." },
        { type: "message", role: "user", content: "Show me module 0 again." },
      );
      const send = async (body: Body, cache: Record<string, string>) => {
        const options = { headers: { ...headers, ...cache } };
        if (!streaming) return (await client.responses.create(body, options)).output_text;
        let streamed = "";
        const stream = await client.responses.create({ ...body, stream: true }, options);
        for await (const event of stream) {
          if (event.type === "response.output_text.delta") streamed += event.delta;
        }
        return streamed;
      };

      const answers = [
        await send(first, { "x-context-guru-cache": "cold" }),
        await send(second, {}),
      ];

      expect(answers).toEqual(["Module 0 looks odd.", FINAL]);
      const [turn1 = "", turn2 = "", round2 = ""] = harness.upstream.requests.map((r) => r.body);
      expect(turn1).toContain(`<<cg:${MASKED_ID}>>`);
      // Turn 2 sends turn 1's items as they were sent, the marker included (§4a).
      const end = turn1.lastIndexOf("]", turn1.indexOf('"tools"'));
      expect(turn2.slice(0, end)).toBe(turn1.slice(0, end));
      expect((JSON.parse(round2) as Json).input.at(-1)).toEqual(output(expand.id, toolOutput(0)));
      expect(harness.events).toMatchObject({ rounds: 1, resolved: 1, bails: [] });
    },
  );

  it.each([false, true])(
    "chains on the response id with previous_response_id and store (stream %s)",
    async (streaming) => {
      const [one, two] = [expandCall(MASKED_ID, "call_one"), expandCall(MASKED_ID, "call_two")];
      harness.upstream.reply(
        responsesReply(streaming, [reasoning, call(one)], { id: "resp_a" }),
        responsesReply(streaming, [call(two)], { id: "resp_b" }),
        responsesReply(streaming, [text(FINAL)], { id: "resp_c" }),
      );
      const body = { ...responsesConversation(), previous_response_id: "resp_prev", store: true };

      const result = await create(streaming, body);

      expect(result).toMatchObject({ text: FINAL, calls: [], id: "resp_c" });
      const [first, second, third] = requests();
      expect(first?.previous_response_id).toBe("resp_prev");
      // Only the new outputs are sent: the server holds the response and its items.
      expect([second?.previous_response_id, second?.input]).toEqual([
        "resp_a",
        [output("call_one", toolOutput(0))],
      ]);
      expect([third?.previous_response_id, third?.input]).toEqual([
        "resp_b",
        [output("call_two", toolOutput(0))],
      ]);
      const rest = ({ input: _input, previous_response_id: _previous, ...others }: Json) => others;
      expect(rest(second as Json)).toEqual(rest(first as Json));
      expect(harness.events).toMatchObject({ rounds: 2, resolved: 2, bails: [] });
    },
  );

  it("carries the items back when the response will not be stored (store: false)", async () => {
    const expand = expandCall(MASKED_ID);
    harness.upstream.reply(
      responsesReply(false, [reasoning, call(expand)], { id: "resp_a" }),
      responsesReply(false, [text(FINAL)]),
    );
    const body = { ...responsesConversation(), previous_response_id: "resp_prev", store: false };

    const result = await create(false, body);

    expect(result.text).toBe(FINAL);
    const [first, second] = requests();
    expect(second?.previous_response_id).toBe("resp_prev");
    expect(second?.input.slice(first?.input.length)).toEqual([
      JSON.parse(REASONING_RAW),
      functionCallItem(expand, 1),
      output(expand.id, toolOutput(0)),
    ]);
  });

  it.each([false, true])(
    "returns expand alongside another tool as it is (stream %s)",
    async (streaming) => {
      harness.upstream.reply(responsesReply(streaming, [call(expandCall(MASKED_ID)), call(bash)]));

      const result = await create(streaming);

      expect(result).toMatchObject({ text: "", calls: ["context_guru_expand", "bash"] });
      expect(requests()).toHaveLength(1);
      expect(harness.events).toMatchObject({ rounds: 0, resolved: 0, bails: ["other_tool"] });
    },
  );

  it("returns expand alongside a built-in tool call as it is", async () => {
    const search = {
      type: "web_search_call",
      id: "ws_1",
      status: "completed",
      action: { type: "search", query: "bug" },
    };
    harness.upstream.reply(
      responsesReply(false, [{ type: "builtin", item: search }, call(expandCall(MASKED_ID))]),
    );

    const result = await create(false);

    expect(result.calls).toEqual(["context_guru_expand"]);
    expect(requests()).toHaveLength(1);
    expect(harness.events.bails).toEqual(["other_tool"]);
  });

  it.each([false, true])(
    "stops after three rounds against a model that always expands (stream %s)",
    async (streaming) => {
      harness.upstream.script((_, index) =>
        responsesReply(streaming, [call(expandCall(MASKED_ID, `call_${index}`))], {
          id: `resp_${index}`,
        }),
      );

      const result = await create(streaming);

      expect(result).toMatchObject({ text: "", calls: ["context_guru_expand"], id: "resp_3" });
      const all = requests();
      expect(all).toHaveLength(4);
      expect(all[3]?.input.length).toBe((all[0]?.input.length ?? 0) + 6);
      expect(harness.events).toMatchObject({ rounds: 3, resolved: 3, bails: ["max_rounds"] });
    },
  );

  it("gives a stream that opens with expand and breaks off to the client as it came", async () => {
    const events = responsesEvents([call(expandCall(MASKED_ID))]);
    harness.upstream.reply({ sse: events, reset: { before: 4 } });

    await expect(create(true)).rejects.toThrow();

    expect(requests()).toHaveLength(1);
    expect(harness.events.bails).toEqual(["aggregation_failed"]);
  });

  it("streams a text-first response through before the upstream finishes", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reply = responsesReply(true, [reasoning, text("Hello world")]);
    // Held before the second text delta until the first one has reached the client.
    harness.upstream.reply({ ...reply, hold: { before: 6, until: gate } });

    const stream = await client.responses.create({ ...responsesConversation(), stream: true });
    let streamed = "";
    for await (const event of stream) {
      if (event.type !== "response.output_text.delta") continue;
      if (streamed === "") release();
      streamed += event.delta;
    }

    expect(streamed).toBe("Hello world");
    expect(harness.events.responses).toEqual([{ provider: "responses", streamed: true }]);
  }, 10_000);
});
