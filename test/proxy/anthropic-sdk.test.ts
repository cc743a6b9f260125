import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  anthropicEvents,
  anthropicJson,
  type BlockSpec,
  type CallSpec,
  expandCall,
} from "../support/model-replies.js";
import {
  anthropicClient,
  anthropicConversation,
  FOREIGN_ID,
  type Harness,
  MASKED_ID,
  startHarness,
  toolOutput,
} from "../support/proxy-harness.js";

type Json = Record<string, unknown> & { messages: unknown[]; tools?: { name: string }[] };

const FINAL = "The bug is in module 0.";
const THINKING: BlockSpec = {
  type: "thinking",
  thinking: "The oldest output was masked; I need it back.",
  signature: "EqQBCkYIARgCKkBsignature==",
};
const bash: CallSpec = { id: "toolu_ls", name: "bash", input: { command: "ls" } };
const use = (call: CallSpec): BlockSpec => ({ type: "tool_use", ...call });

/** The scripted model's answer, as a JSON body or as an event stream. */
const reply = (streaming: boolean, blocks: BlockSpec[]) =>
  streaming ? { sse: anthropicEvents(blocks) } : anthropicJson(blocks);

const results = (...items: [string, string][]) => ({
  role: "user",
  content: items.map(([id, content]) => ({ type: "tool_result", tool_use_id: id, content })),
});

describe("Anthropic proxy with the official client", () => {
  let harness: Harness;
  let client: Anthropic;
  let sessions = 0;

  beforeAll(async () => {
    harness = await startHarness();
    client = anthropicClient(harness);
  });
  afterAll(() => harness.close());
  beforeEach(() => harness.reset());

  /** Runs one request, streaming or not; returns the content blocks the client got. */
  async function create(streaming: boolean): Promise<Anthropic.ContentBlock[]> {
    // A session's first request meets a cold cache, so its older outputs are masked (§4a).
    const options = {
      headers: {
        "x-context-guru-session": `anthropic-${++sessions}`,
        "x-context-guru-cache": "cold",
      },
    };
    if (!streaming) return (await client.messages.create(anthropicConversation(), options)).content;
    return (await client.messages.stream(anthropicConversation(), options).finalMessage()).content;
  }

  const requests = () => harness.upstream.requests.map((request) => request.json as Json);
  const appended = () => {
    const [first, ...rest] = requests();
    return rest.map((request) => request.messages.slice(first?.messages.length));
  };

  it.each([false, true])(
    "resolves a lone expand call; thinking and its signature survive (stream %s)",
    async (streaming) => {
      const call = expandCall(MASKED_ID, "toolu_expand");
      harness.upstream.reply(
        reply(streaming, [THINKING, use(call)]),
        reply(streaming, [{ type: "text", text: FINAL }]),
      );

      const content = await create(streaming);

      expect(content).toEqual([{ type: "text", text: FINAL }]);
      const [first] = requests();
      expect(JSON.stringify(first?.messages[2])).toContain(`<<cg:${MASKED_ID}>>`);
      expect(first?.tools?.map((tool) => tool.name)).toEqual(["bash", "context_guru_expand"]);
      expect(appended()).toEqual([
        [{ role: "assistant", content: [THINKING, use(call)] }, results([call.id, toolOutput(0)])],
      ]);
      expect(harness.events).toMatchObject({ rounds: 1, resolved: 1, misses: 0, bails: [] });
      expect(harness.events.responses).toEqual([{ provider: "anthropic", streamed: streaming }]);
    },
  );

  it.each([false, true])(
    "answers a miss with the placeholder, in call order (stream %s)",
    async (streaming) => {
      const calls = [expandCall(MASKED_ID, "toolu_a"), expandCall(FOREIGN_ID, "toolu_b")];
      harness.upstream.reply(
        reply(streaming, [{ type: "text", text: " " }, ...calls.map(use)]),
        reply(streaming, [{ type: "text", text: FINAL }]),
      );

      const content = await create(streaming);

      expect(content).toEqual([{ type: "text", text: FINAL }]);
      expect(appended()).toEqual([
        [
          {
            role: "assistant",
            content: [{ type: "text", text: " " }, ...calls.map(use)],
          },
          results(
            ["toolu_a", toolOutput(0)],
            ["toolu_b", `[expand: original for id ${FOREIGN_ID} is no longer available]`],
          ),
        ],
      ]);
      expect(harness.events).toMatchObject({ rounds: 1, resolved: 1, misses: 1 });
    },
  );

  it.each([false, true])(
    "returns expand alongside another tool as it is (stream %s)",
    async (streaming) => {
      const blocks = [use(expandCall(MASKED_ID)), use(bash)];
      harness.upstream.reply(reply(streaming, blocks));

      const content = await create(streaming);

      expect(content).toEqual(blocks);
      expect(requests()).toHaveLength(1);
      expect(harness.events).toMatchObject({ rounds: 0, bails: ["other_tool"] });
    },
  );

  it.each([false, true])(
    "stops after three rounds against a model that always expands (stream %s)",
    async (streaming) => {
      harness.upstream.script((_, index) =>
        reply(streaming, [THINKING, use(expandCall(MASKED_ID, `toolu_${index}`))]),
      );

      const content = await create(streaming);

      expect(content).toEqual([THINKING, use(expandCall(MASKED_ID, "toolu_3"))]);
      expect(requests()).toHaveLength(4);
      expect(appended().map((messages) => messages.length)).toEqual([2, 4, 6]);
      expect(harness.events).toMatchObject({ rounds: 3, resolved: 3, bails: ["max_rounds"] });
    },
  );

  it("streams a text-first response through before the upstream finishes", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const events = anthropicEvents([{ type: "text", text: "Hello world" }]);
    // Held before the second text delta: the first one must reach the client on its own.
    harness.upstream.reply({ sse: events, hold: { before: 4, until: gate } });

    const stream = client.messages.stream(anthropicConversation());
    stream.on("text", (text) => {
      if (text === "Hello") release();
    });
    const message = await stream.finalMessage();

    expect(message.content).toEqual([{ type: "text", text: "Hello world" }]);
    expect(harness.events.responses).toEqual([{ provider: "anthropic", streamed: true }]);
  }, 10_000);

  it.each([
    [429, { type: "error", error: { type: "rate_limit_error", message: "slow down" } }],
    [500, { type: "error", error: { type: "api_error", message: "model crashed" } }],
  ])("passes upstream status %i through with its body", async (status, body) => {
    harness.upstream.reply({ status, json: body }, { status, json: body });

    for (const streaming of [false, true]) {
      const error = await create(streaming).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect(error).toMatchObject({ status, error: body });
    }
  });

  it("sends the client's key and the SDK's headers upstream", async () => {
    harness.upstream.reply(anthropicJson([{ type: "text", text: FINAL }]));

    await create(false);

    const request = harness.upstream.requests[0];
    expect(request?.url).toBe("/v1/messages");
    expect(request?.headers.authorization).toBe("Bearer sk-ant-client");
    expect(request?.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request?.headers["x-context-guru-session"]).toBeUndefined();
  });
});

describe("Anthropic proxy without a reachable upstream", () => {
  it("answers 502 without naming the upstream", async () => {
    const harness = await startHarness();
    const port = harness.upstream.port;
    await harness.upstream.close();
    const client = anthropicClient(harness, { apiKey: "sk-ant" });

    const error = await client.messages
      .create(anthropicConversation())
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status: 502, error: { error: "upstream connection failed" } });
    expect(JSON.stringify(error)).not.toContain(String(port));
    await harness.close().catch(() => undefined);
  });
});
