import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CallSpec, expandCall, openaiEvents, openaiJson } from "../support/model-replies.js";
import {
  FOREIGN_ID,
  type Harness,
  MASKED_ID,
  openaiClient,
  openaiConversation,
  startHarness,
  toolOutput,
} from "../support/proxy-harness.js";

type Json = Record<string, unknown> & { messages: unknown[]; tools?: unknown[] };

const FINAL = "The bug is in module 0.";
const bash: CallSpec = { id: "call_ls", name: "bash", input: { command: "ls" } };

/** The scripted model's answer, as a JSON body or as an event stream. */
const reply = (streaming: boolean, text: string | null, calls: CallSpec[] = []) =>
  streaming ? { sse: openaiEvents(text === null ? [] : [text], calls) } : openaiJson(text, calls);

/** The assistant message the proxy appends for `calls`. */
const assistantTurn = (calls: CallSpec[]) => ({
  role: "assistant",
  content: null,
  tool_calls: calls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  })),
});

describe("OpenAI proxy with the official client", () => {
  let harness: Harness;
  let client: OpenAI;

  beforeAll(async () => {
    harness = await startHarness();
    client = openaiClient(harness);
  });
  afterAll(() => harness.close());
  beforeEach(() => harness.reset());

  let sessions = 0;
  /**
   * A session of its own per call, so what one test expanded stays out of the next; its first
   * request meets a cold cache, so its older outputs are masked (§4a).
   */
  const session = () => ({
    headers: { "x-context-guru-session": `openai-${++sessions}`, "x-context-guru-cache": "cold" },
  });

  /** Runs one completion, streaming or not; returns the text and tool calls the client got. */
  async function complete(streaming: boolean) {
    if (!streaming) {
      const { data, response } = await client.chat.completions
        .create(openaiConversation(), session())
        .withResponse();
      const message = data.choices[0]?.message;
      const calls = (message?.tool_calls ?? []).map((call) =>
        call.type === "function" ? call.function.name : call.type,
      );
      return {
        text: message?.content ?? null,
        calls,
        session: response.headers.get("x-context-guru-session"),
      };
    }
    const { data: stream, response } = await client.chat.completions
      .create({ ...openaiConversation(), stream: true }, session())
      .withResponse();
    let text: string | null = null;
    const calls: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (delta?.content) text = (text ?? "") + delta.content;
      for (const call of delta?.tool_calls ?? [])
        if (call.function?.name) calls.push(call.function.name);
    }
    return { text, calls, session: response.headers.get("x-context-guru-session") };
  }

  const requests = () => harness.upstream.requests.map((request) => request.json as Json);

  it.each([false, true])(
    "resolves a lone expand call; the client sees only the final answer (stream %s)",
    async (streaming) => {
      const call = expandCall(MASKED_ID);
      harness.upstream.reply(reply(streaming, null, [call]), reply(streaming, FINAL));

      const result = await complete(streaming);

      expect(result).toMatchObject({ text: FINAL, calls: [] });
      const [first, second] = requests();
      expect(requests()).toHaveLength(2);
      expect(JSON.stringify(first?.messages[3])).toContain(`<<cg:${MASKED_ID}>>`);
      expect(
        first?.tools?.map((tool) => (tool as { function: { name: string } }).function.name),
      ).toEqual(["bash", "context_guru_expand"]);
      expect(second?.messages.slice(first?.messages.length)).toEqual([
        assistantTurn([call]),
        { role: "tool", tool_call_id: call.id, content: toolOutput(0) },
      ]);
      // Round 2 is round 1 plus the appended turn: every earlier byte unchanged.
      const [firstBody, secondBody] = harness.upstream.requests.map((request) => request.body);
      const close = (firstBody ?? "").lastIndexOf("]", (firstBody ?? "").indexOf('"tools"'));
      expect(secondBody?.slice(0, close)).toBe(firstBody?.slice(0, close));
      expect(harness.events).toMatchObject({ rounds: 1, resolved: 1, misses: 0, bails: [] });
      expect(harness.events.responses).toEqual([{ provider: "openai", streamed: streaming }]);
      const ledger = await harness.store.ledger(result.session ?? "");
      expect(ledger.kept.has(MASKED_ID)).toBe(true);
    },
  );

  it.each([false, true])(
    "answers a miss with the placeholder, in call order (stream %s)",
    async (streaming) => {
      const calls = [expandCall(FOREIGN_ID, "call_a"), expandCall(MASKED_ID, "call_b")];
      harness.upstream.reply(reply(streaming, null, calls), reply(streaming, FINAL));

      const result = await complete(streaming);

      expect(result).toMatchObject({ text: FINAL, calls: [] });
      const [first, second] = requests();
      expect(second?.messages.slice(first?.messages.length)).toEqual([
        assistantTurn(calls),
        {
          role: "tool",
          tool_call_id: "call_a",
          content: `[expand: original for id ${FOREIGN_ID} is no longer available]`,
        },
        { role: "tool", tool_call_id: "call_b", content: toolOutput(0) },
      ]);
      expect(harness.events).toMatchObject({ rounds: 1, resolved: 1, misses: 1 });
    },
  );

  it.each([false, true])(
    "returns expand alongside another tool as it is (stream %s)",
    async (streaming) => {
      harness.upstream.reply(reply(streaming, null, [expandCall(MASKED_ID), bash]));

      const result = await complete(streaming);

      expect(result).toMatchObject({ text: null, calls: ["context_guru_expand", "bash"] });
      expect(requests()).toHaveLength(1);
      expect(harness.events).toMatchObject({ rounds: 0, resolved: 0, bails: ["other_tool"] });
    },
  );

  it.each([false, true])(
    "answers a call for an id the request does not carry with the placeholder (stream %s)",
    async (streaming) => {
      const call = expandCall(FOREIGN_ID);
      harness.upstream.reply(reply(streaming, null, [call]), reply(streaming, FINAL));

      const result = await complete(streaming);

      expect(result).toMatchObject({ text: FINAL, calls: [] });
      expect(requests()).toHaveLength(2);
      expect(requests()[1]?.messages.at(-1)).toEqual({
        role: "tool",
        tool_call_id: call.id,
        content: `[expand: original for id ${FOREIGN_ID} is no longer available]`,
      });
      expect(harness.events).toMatchObject({ misses: 1, rounds: 1, bails: [] });
    },
  );

  it("returns as it is a response whose ids were written for this request but are no longer held", async () => {
    // The store evicts the original while the upstream is answering: the marker is this
    // request's own, but nothing can stand in for it.
    const small = await startHarness({
      store: { max_entries: 8, max_bytes: 1 << 20, max_session_bytes: 1 << 20 },
    });
    try {
      small.upstream.script(() => {
        for (let i = 0; i < 8; i++) void small.store.put("flood", [{ key: `f${i}`, value: "x" }]);
        return reply(false, null, [expandCall(MASKED_ID)]);
      });
      const smallClient = openaiClient(small);

      const data = await smallClient.chat.completions.create(openaiConversation(), session());

      expect(JSON.stringify(small.upstream.requests[0]?.json)).toContain(`<<cg:${MASKED_ID}>>`);
      expect(data.choices[0]?.message.tool_calls?.[0]).toMatchObject({
        function: { name: "context_guru_expand" },
      });
      expect(small.upstream.requests).toHaveLength(1);
      expect(small.events).toMatchObject({ misses: 1, bails: ["nothing_resolved"] });
    } finally {
      await small.close();
    }
  });

  it.each([false, true])(
    "stops after three rounds against a model that always expands (stream %s)",
    async (streaming) => {
      harness.upstream.script((_, index) =>
        reply(streaming, null, [expandCall(MASKED_ID, `call_${index}`)]),
      );

      const result = await complete(streaming);

      expect(result).toMatchObject({ text: null, calls: ["context_guru_expand"] });
      const all = requests();
      expect(all).toHaveLength(4);
      expect(all[3]?.messages.length).toBe((all[0]?.messages.length ?? 0) + 6);
      expect(harness.events).toMatchObject({ rounds: 3, resolved: 3, bails: ["max_rounds"] });
    },
  );

  it("keeps an expanded original verbatim when the conversation's head is next decided", async () => {
    const options = {
      headers: { "x-context-guru-session": "openai-next-turn", "x-context-guru-cache": "cold" },
    };
    harness.upstream.reply(
      openaiJson(null, [expandCall(MASKED_ID)]),
      openaiJson(FINAL),
      openaiJson(FINAL),
    );

    await client.chat.completions.create(openaiConversation(), options);
    await client.chat.completions.create(openaiConversation(), options);

    const [first, , next] = requests();
    expect(JSON.stringify(first?.messages[3])).toContain(`<<cg:${MASKED_ID}>>`);
    expect(next?.messages[3]).toEqual({
      role: "tool",
      tool_call_id: "call_bash_0",
      content: toolOutput(0),
    });
    // Nothing else of the request changed; the expand tool the conversation was given stays, so
    // a later warm turn may still write markers.
    const sent = JSON.parse(harness.upstream.requests[2]?.body ?? "{}");
    const original = JSON.parse(JSON.stringify(openaiConversation()));
    const names = (tools: { function: { name: string } }[]) =>
      tools.map((tool) => tool.function.name);
    expect({ ...sent, tools: [] }).toEqual({ ...original, tools: [] });
    expect(names(sent.tools)).toEqual([...names(original.tools), "context_guru_expand"]);
  });

  it("gives a warm next turn back as it was sent, the expanded output still marked (§4a)", async () => {
    const session = "openai-warm-next-turn";
    harness.upstream.reply(
      openaiJson(null, [expandCall(MASKED_ID)]),
      openaiJson(FINAL),
      openaiJson(FINAL),
    );

    const first = { "x-context-guru-session": session, "x-context-guru-cache": "cold" };
    await client.chat.completions.create(openaiConversation(), { headers: first });
    const { response } = await client.chat.completions
      .create(openaiConversation(), { headers: { "x-context-guru-session": session } })
      .withResponse();

    const [sent, , next] = harness.upstream.requests.map((request) => request.body);
    expect(next).toBe(sent);
    expect(response.headers.get("x-context-guru-cache")).toBe("warm");
    // The cache header is the service's own: it never goes upstream.
    expect(harness.upstream.requests[0]?.headers["x-context-guru-cache"]).toBeUndefined();
  });

  it("streams a text-first response through before the upstream finishes", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    harness.upstream.reply({
      sse: openaiEvents(["Hello", " world"]),
      hold: { before: 2, until: gate },
    });

    const stream = await client.chat.completions.create({
      ...openaiConversation(),
      stream: true,
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = "";
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content ?? "";
      // The upstream holds the rest until this first text has reached the client.
      if (content === "Hello") release();
      text += content;
    }

    expect(text).toBe("Hello world");
    expect(harness.events.responses).toEqual([{ provider: "openai", streamed: true }]);
  }, 10_000);

  it.each([false, true])(
    "replays a stream that opens with expand but breaks off (stream %s)",
    async (streaming) => {
      const events = openaiEvents([], [expandCall(MASKED_ID)]);
      harness.upstream.reply(
        streaming
          ? { sse: events, reset: { before: 3 } }
          : { body: "{not json", headers: { "content-type": "application/json" } },
      );

      const outcome = complete(streaming);

      if (streaming) await expect(outcome).rejects.toThrow();
      else await expect(outcome).rejects.toBeInstanceOf(SyntaxError);
      expect(requests()).toHaveLength(1);
      expect(harness.events.bails).toEqual(streaming ? ["aggregation_failed"] : []);
    },
  );

  it.each([
    [429, { error: { message: "slow down", type: "rate_limit_error" } }],
    [500, { error: { message: "model crashed", type: "server_error" } }],
  ])("passes upstream status %i through with its body", async (status, body) => {
    harness.upstream.reply({ status, json: body }, { status, json: body });

    for (const streaming of [false, true]) {
      const error = await complete(streaming).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error).toMatchObject({ status, error: body.error });
    }
  });

  it("decodes a compressed upstream response", async () => {
    harness.upstream.reply({ ...openaiJson("zipped answer"), gzip: true });

    const result = await complete(false);

    expect(result.text).toBe("zipped answer");
  });

  it("passes the client's credentials upstream and drops cookies and control headers", async () => {
    harness.upstream.reply(openaiJson(FINAL));
    await client.chat.completions.create(openaiConversation(), {
      headers: { cookie: "session=secret", "x-context-guru-session": "agent-7" },
    });

    const headers = harness.upstream.requests[0]?.headers ?? {};
    expect(headers.authorization).toBe("Bearer sk-client");
    expect(headers.cookie).toBeUndefined();
    expect(headers["x-context-guru-session"]).toBeUndefined();
    expect(harness.upstream.requests[0]?.url).toBe("/v1/chat/completions");
  });

  it("aborts the upstream call when the client goes away", async () => {
    const gate = new Promise<void>(() => {});
    harness.upstream.reply({
      sse: openaiEvents(["Hello", " world"]),
      hold: { before: 2, until: gate },
    });
    const abort = new AbortController();

    const stream = await client.chat.completions.create(
      { ...openaiConversation(), stream: true },
      { signal: abort.signal },
    );
    const consumed = (async () => {
      for await (const chunk of stream)
        if (chunk.choices[0]?.delta.content === "Hello") abort.abort();
    })();

    await consumed.catch(() => undefined);
    await harness.upstream.requests[0]?.abandoned;
    expect(harness.upstream.requests).toHaveLength(1);
  }, 10_000);
});

describe("OpenAI proxy without a reachable upstream", () => {
  it("answers 502 without naming the upstream", async () => {
    const harness = await startHarness();
    const port = harness.upstream.port;
    await harness.upstream.close();
    const client = openaiClient(harness, "sk");

    const error = await client.chat.completions
      .create(openaiConversation())
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 502, error: "upstream connection failed" });
    expect(JSON.stringify(error)).not.toContain(String(port));
    await harness.close().catch(() => undefined);
  });
});
