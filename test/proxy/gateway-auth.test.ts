import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicJson, openaiJson } from "../support/model-replies.js";
import {
  anthropicClient,
  anthropicConversation,
  type Harness,
  openaiClient,
  openaiConversation,
  startHarness,
} from "../support/proxy-harness.js";

/** §10: a configured gateway key is never spent for a caller without `auth.token`. */
const TOKEN = "proxy-token-0123456789abcdef";
const GATEWAY = { openai: "sk-gateway-openai-1", anthropic: "sk-gateway-anthropic-2" };

describe("proxy routes with gateway keys require auth.token", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({
      auth: { token: TOKEN },
      upstream: {
        openai: { api_key: GATEWAY.openai },
        anthropic: { api_key: GATEWAY.anthropic },
      },
    });
  });
  afterAll(() => harness.close());
  beforeEach(() => harness.reset());

  it.each(["sk-client-own-key", `${TOKEN}x`, TOKEN.slice(1)])(
    "the OpenAI client with api key %s gets 401 and nothing goes upstream",
    async (apiKey) => {
      harness.upstream.reply(openaiJson("should not be reached"));
      const refused = openaiClient(harness, apiKey).chat.completions.create(openaiConversation());
      await expect(refused).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      await expect(refused).rejects.toMatchObject({ status: 401 });
      expect(harness.upstream.requests).toHaveLength(0);
    },
  );

  it.each([
    ["api key", { apiKey: "sk-ant-client-own-key" }],
    ["auth token", { authToken: "sk-ant-client-own-key" }],
  ])(
    "the Anthropic client with a wrong %s gets 401 and nothing goes upstream",
    async (_, credentials) => {
      harness.upstream.reply(anthropicJson([{ type: "text", text: "should not be reached" }]));
      const refused = anthropicClient(harness, credentials).messages.create(
        anthropicConversation(),
      );
      await expect(refused).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
      expect(harness.upstream.requests).toHaveLength(0);
    },
  );

  it.each(["/v1/chat/completions", "/v1/messages"])(
    "%s refuses a request without credentials, with the bearer challenge",
    async (path) => {
      const response = await fetch(`http://127.0.0.1:${harness.port}${path}`, {
        method: "POST",
        body: JSON.stringify(openaiConversation()),
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="cg-compactor"');
      expect(await response.json()).toEqual({ error: "missing or invalid bearer token" });
      expect(harness.upstream.requests).toHaveLength(0);
    },
  );

  it("the token as x-api-key, as other Anthropic clients send a key, passes too", async () => {
    harness.upstream.reply(anthropicJson([{ type: "text", text: "answered" }]));
    const response = await fetch(`http://127.0.0.1:${harness.port}/v1/messages`, {
      method: "POST",
      body: JSON.stringify(anthropicConversation()),
      headers: { "content-type": "application/json", "x-api-key": TOKEN },
    });
    expect(response.status).toBe(200);
    expect(harness.upstream.requests[0]?.headers["x-api-key"]).toBe(GATEWAY.anthropic);
  });

  it("the OpenAI client presenting the token passes; upstream gets the gateway key, never the token", async () => {
    harness.upstream.reply(openaiJson("answered"));
    const completion = await openaiClient(harness, TOKEN).chat.completions.create(
      openaiConversation(),
    );
    expect(completion.choices[0]?.message.content).toBe("answered");
    const [request] = harness.upstream.requests;
    expect(request?.headers.authorization).toBe(`Bearer ${GATEWAY.openai}`);
    expect(JSON.stringify(request?.headers)).not.toContain(TOKEN);
  });

  it.each([
    ["api key", { apiKey: TOKEN }],
    ["auth token", { authToken: TOKEN }],
  ])("the Anthropic client presenting the token as its %s passes", async (_, credentials) => {
    harness.upstream.reply(anthropicJson([{ type: "text", text: "answered" }]));
    const message = await anthropicClient(harness, credentials).messages.create(
      anthropicConversation(),
    );
    expect(message.content).toEqual([{ type: "text", text: "answered" }]);
    const [request] = harness.upstream.requests;
    expect([request?.headers["x-api-key"], request?.headers.authorization]).toEqual([
      GATEWAY.anthropic,
      undefined,
    ]);
    expect(JSON.stringify(request?.headers)).not.toContain(TOKEN);
  });
});

describe("a proxy route without a gateway key forwards the client's own credentials", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({
      auth: { token: TOKEN },
      upstream: { openai: { api_key: GATEWAY.openai } },
    });
  });
  afterAll(() => harness.close());
  beforeEach(() => harness.reset());

  it("the Anthropic client's own key passes and reaches the upstream as it was", async () => {
    harness.upstream.reply(anthropicJson([{ type: "text", text: "own key" }]));
    const client = anthropicClient(harness, { apiKey: "sk-ant-client-own-key" });
    const message = await client.messages.create(anthropicConversation());
    expect(message.content).toEqual([{ type: "text", text: "own key" }]);
    expect(harness.upstream.requests[0]?.headers.authorization).toBe(
      "Bearer sk-ant-client-own-key",
    );
  });

  it("the OpenAI route, which has one, still refuses the client's own key", async () => {
    const refused = openaiClient(harness, "sk-client-own-key").chat.completions.create(
      openaiConversation(),
    );
    await expect(refused).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(harness.upstream.requests).toHaveLength(0);
  });
});
