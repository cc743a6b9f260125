import type Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { sample } from "../observability/prometheus-text.js";
import {
  anthropicClient,
  anthropicConversation,
  type Harness,
  MASKED_ID,
  startHarness,
  toolOutput,
} from "../support/proxy-harness.js";
import type { ScriptedReply } from "../support/scripted-upstream.js";

const T0 = 1_800_000_000_000;
const SECOND = 1000;
const COUNT = { input_tokens: 4242 };
/** A model answer without usage: nothing is observed, so the ledger moves only by requests. */
const ANSWER: ScriptedReply = {
  json: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [{ type: "text", text: "Done." }],
    stop_reason: "end_turn",
  },
};

/** The harness conversation one exchange later: a fifth call and its output. */
function turnTwo(): Anthropic.MessageCreateParamsNonStreaming {
  const first = anthropicConversation();
  return {
    ...first,
    messages: [
      ...first.messages,
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_bash_4", name: "bash", input: { command: "ls" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_bash_4", content: toolOutput(4) }],
      },
    ],
  };
}

const TURN_ONE = JSON.stringify(anthropicConversation());
const TURN_TWO = JSON.stringify(turnTwo());

/** The message tokens the harness's compactions have counted, as its metrics say. */
const tokensSeen = async (harness: Harness) =>
  sample(await (await harness.app.request("/metrics")).text(), "cg_request_tokens_before_total");

/** The harness's headers of what it said about a request (session, cache, tokens). */
const said = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(
      ([name]) => name.startsWith("x-context-guru-") && name !== "x-context-guru-expand-rounds",
    ),
  );

describe("POST /v1/messages/count_tokens", () => {
  let harnesses: Harness[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.map((harness) => harness.close()));
    harnesses = [];
  });

  /** A harness on a clock the test moves; counts answer COUNT, messages ANSWER. */
  async function start(overrides: Parameters<typeof startHarness>[0] = {}) {
    const clock = { now: T0 };
    const harness = await startHarness(overrides, { clock: () => clock.now });
    harness.upstream.script((request) =>
      request.url.endsWith("/count_tokens") ? { json: COUNT } : ANSWER,
    );
    harnesses.push(harness);
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${harness.port}${path}`, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-api-key": "sk-ant-client",
          "anthropic-version": "2023-06-01",
          "x-context-guru-session": "count-session",
          ...headers,
        },
      });
    return { harness, clock, post };
  }

  it.each(["inline", "worker"])(
    "sends upstream exactly the body /v1/messages sends next, and records nothing (%s)",
    async (thread) => {
      const { harness, clock, post } = await start(
        thread === "worker" ? { limits: { worker_min_bytes: 1, compact_timeout_ms: 600_000 } } : {},
      );
      // Turn one is decided whole: its oldest output becomes a marker, the expand tool is added.
      await (await post("/v1/messages", TURN_ONE, { "x-context-guru-cache": "cold" })).text();
      clock.now += 10 * SECOND;
      const ledger = await harness.store.ledger("count-session");
      const stats = await harness.store.stats();
      const tokensBefore = () => tokensSeen(harness);
      const seen = await tokensBefore();

      const counted = await post("/v1/messages/count_tokens", TURN_TWO);

      expect(counted.status).toBe(200);
      expect(await counted.json()).toEqual(COUNT);
      expect(await harness.store.ledger("count-session")).toEqual(ledger);
      expect(await harness.store.stats()).toEqual(stats);
      // A count is never sent to the model: the compaction metrics do not count it.
      expect(await tokensBefore()).toBe(seen);
      const sent = await post("/v1/messages", TURN_TWO);
      await sent.text();
      const [, count, messages] = harness.upstream.requests;
      expect(count?.url).toBe("/v1/messages/count_tokens");
      expect(messages?.url).toBe("/v1/messages");
      expect(count?.body).toBe(messages?.body);
      // What the model reads: the replayed marker and the expand tool, not the body as sent.
      expect(count?.body).toContain(`<<cg:${MASKED_ID}>>`);
      const countBody = count?.json as { tools: { name: string }[] } | undefined;
      expect(countBody?.tools.map((tool) => tool.name)).toEqual(["bash", "context_guru_expand"]);
      expect(said(counted)).toEqual(said(sent));
      expect(said(counted)).toMatchObject({
        "x-context-guru-session": "count-session",
        "x-context-guru-cache": "warm",
      });
      if (thread === "worker") {
        const metrics = await (await harness.app.request("/metrics")).text();
        const labels = { job: "compact", thread: "worker", end: "completed" };
        expect(sample(metrics, "cg_compaction_jobs_total", labels)).toBe(3);
      }
    },
  );

  it("leaves the next /v1/messages as if the count had never been asked", async () => {
    // Turn one at T0, turn two at T0 + 400 s: past the 300 s cache TTL, so turn two is cold and
    // decided afresh. A count at T0 + 200 s that counted as a request would make it warm.
    const counted = await start();
    const plain = await start();
    for (const { post } of [counted, plain]) {
      await (await post("/v1/messages", TURN_ONE, { "x-context-guru-cache": "cold" })).text();
    }
    counted.clock.now = T0 + 200 * SECOND;
    await (await counted.post("/v1/messages/count_tokens", TURN_TWO)).text();
    counted.clock.now = T0 + 400 * SECOND;
    plain.clock.now = T0 + 400 * SECOND;

    const [after, without] = await Promise.all(
      [counted, plain].map(async ({ post }) => {
        const response = await post("/v1/messages", TURN_TWO);
        await response.text();
        return response;
      }),
    );

    expect(said(after as Response)).toEqual(said(without as Response));
    expect(said(after as Response)).toMatchObject({
      "x-context-guru-cache": "cold",
      "x-context-guru-cache-reason": "ttl",
    });
    expect(counted.harness.upstream.requests.at(-1)?.body).toBe(
      plain.harness.upstream.requests.at(-1)?.body,
    );
  });

  it("answers the official client's messages.countTokens with the upstream's count", async () => {
    const { harness } = await start();
    const client = anthropicClient(harness);
    const { max_tokens: _max, ...params } = anthropicConversation();

    const result = await client.messages.countTokens(params, {
      headers: { "x-context-guru-session": "sdk-count", "x-context-guru-cache": "cold" },
    });

    expect(result).toEqual(COUNT);
    const [request] = harness.upstream.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/v1/messages/count_tokens");
    // The client's own credential and API version go upstream as it sent them.
    const credential = request?.headers["x-api-key"] ?? request?.headers.authorization;
    expect(credential).toMatch(/^(Bearer )?sk-ant-client$/);
    expect(request?.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(
      Object.keys(request?.headers ?? {}).filter((name) => name.startsWith("x-context-guru")),
    ).toEqual([]);
    const sent = request?.json as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(Object.keys(params).sort());
    expect(JSON.stringify(sent.messages)).toContain(`<<cg:${MASKED_ID}>>`);
    expect(await harness.store.ledger("sdk-count")).toMatchObject({
      lastRequestAt: undefined,
      heads: new Map(),
    });
  });

  it.each([
    ["not JSON", "{", 400, { error: "request body is not valid JSON" }],
    ["not UTF-8", "\u00ff", 400, { error: "request body is not valid UTF-8" }],
  ])("answers a body that is %s itself, sending nothing", async (_case, text, status, error) => {
    const { harness } = await start();
    const body = text === "\u00ff" ? new Uint8Array([0xff, 0xfe]) : text;

    const response = await harness.app.request("/v1/messages/count_tokens", {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });

    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(error);
    expect(harness.upstream.requests).toEqual([]);
  });

  it("passes an upstream error through with its status and body", async () => {
    const { harness } = await start();
    const refusal = { type: "error", error: { type: "invalid_request_error", message: "no" } };
    harness.upstream.script(() => ({ status: 400, json: refusal, headers: { "x-seen": "1" } }));

    const response = await harness.app.request("/v1/messages/count_tokens", {
      method: "POST",
      body: TURN_ONE,
      headers: { "content-type": "application/json" },
    });

    expect(response.status).toBe(400);
    expect(response.headers.get("x-seen")).toBe("1");
    expect(await response.json()).toEqual(refusal);
  });

  it("answers 502 without the upstream's address when it cannot be reached", async () => {
    const closed = await startHarness();
    const port = closed.upstream.port;
    await closed.close();
    const { harness } = await start({
      upstream: { anthropic: { base_url: `http://127.0.0.1:${port}` } },
    });

    const response = await harness.app.request("/v1/messages/count_tokens", {
      method: "POST",
      body: TURN_ONE,
      headers: { "content-type": "application/json" },
    });

    expect(response.status).toBe(502);
    expect(await response.text()).toBe('{"error":"upstream connection failed"}');
  });

  it("requires auth.token with a gateway key, which then replaces it upstream", async () => {
    const token = "operator-token-0123456789";
    const { harness } = await start({
      auth: { token },
      upstream: { anthropic: { api_key: "sk-ant-gateway" } },
    });
    const count = (key: string) =>
      harness.app.request("/v1/messages/count_tokens", {
        method: "POST",
        body: TURN_ONE,
        headers: { "content-type": "application/json", "x-api-key": key },
      });

    const refused = await count("sk-ant-client");
    const accepted = await count(token);

    expect(refused.status).toBe(401);
    expect(accepted.status).toBe(200);
    expect(harness.upstream.requests.map((request) => request.headers["x-api-key"])).toEqual([
      "sk-ant-gateway",
    ]);
  });
});
