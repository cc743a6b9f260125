import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type ModelConfig, modelSchema } from "../../src/config/schema.js";
import type { ModelClient } from "../../src/model/client.js";
import {
  ModelAbortedError,
  ModelError,
  ModelResponseError,
  ModelStatusError,
  ModelTimeoutError,
  ModelUnreachableError,
} from "../../src/model/errors.js";
import { ModelPool } from "../../src/model/pool.js";
import type { ModelPrompt } from "../../src/model/protocol.js";
import { ScriptedModel } from "../support/scripted-model.js";

const model = await ScriptedModel.start();
afterAll(() => model.close());
beforeEach(() => model.reset());

const pool = new ModelPool({ retryBaseMs: 1, env: { CHEAP_KEY: "sk-from-env" } });
const prompt: ModelPrompt = { system: "Be brief.", user: "Say hi.", maxTokens: 64 };
const signal = new AbortController().signal;

function client(input: Partial<Record<keyof ModelConfig, unknown>>): ModelClient {
  const made = pool.clientFor(modelSchema.parse({ model: "cheap-1", ...input }), undefined);
  if (made instanceof ModelError) throw made;
  return made;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("model client", () => {
  it("speaks OpenAI chat completions with a bearer key", async () => {
    model.reply({ text: "hi", usage: { input: 12, output: 3 } });
    const answer = await client({ base_url: model.openaiUrl, api_key: "sk-1" }).complete(
      prompt,
      signal,
    );
    expect(answer).toEqual({
      text: "hi",
      inputTokens: 12,
      outputTokens: 3,
      model: "cheap-1",
      attempts: 1,
    });
    const [request] = model.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-1");
    expect(request?.headers["x-api-key"]).toBeUndefined();
    expect(JSON.parse(request?.body ?? "")).toEqual({
      model: "cheap-1",
      max_tokens: 64,
      temperature: 0,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say hi." },
      ],
    });
  });

  it("speaks Anthropic messages with x-api-key and a version header", async () => {
    model.reply({ text: "hello", usage: { input: 20, output: 4 } });
    const answer = await client({
      provider: "anthropic",
      base_url: model.anthropicUrl,
      api_key: "sk-ant",
    }).complete(prompt, signal);
    expect(answer).toEqual({
      text: "hello",
      inputTokens: 20,
      outputTokens: 4,
      model: "cheap-1",
      attempts: 1,
    });
    const [request] = model.requests;
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["x-api-key"]).toBe("sk-ant");
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request?.headers.authorization).toBeUndefined();
    expect(JSON.parse(request?.body ?? "")).toEqual({
      model: "cheap-1",
      max_tokens: 64,
      temperature: 0,
      system: "Be brief.",
      messages: [{ role: "user", content: "Say hi." }],
    });
  });

  it.each([
    ["openai", "x-api-key", "x-api-key", "sk-env"],
    ["anthropic", "bearer", "authorization", "Bearer sk-env"],
  ] as const)("%s with auth_style %s sends %s", async (provider, style, header, value) => {
    model.reply({ text: "ok" });
    const base = provider === "openai" ? model.openaiUrl : model.anthropicUrl;
    await client({ provider, base_url: base, api_key: "sk-env", auth_style: style }).complete(
      prompt,
      signal,
    );
    expect(model.requests[0]?.headers[header]).toBe(value);
  });

  it("reads the key from the environment variable named by api_key_env", async () => {
    model.reply({ text: "ok" });
    await client({ base_url: model.openaiUrl, api_key_env: "CHEAP_KEY" }).complete(prompt, signal);
    expect(model.requests[0]?.headers.authorization).toBe("Bearer sk-from-env");
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["no base_url", { model: "m" }, "model not configured: base_url"],
    ["no model", { base_url: "http://127.0.0.1:9/v1" }, "model not configured: model"],
    [
      "an unset key variable",
      { base_url: "http://127.0.0.1:9/v1", model: "m", api_key_env: "NOT_SET" },
      "model not configured: api key (environment variable NOT_SET is unset)",
    ],
    [
      "incoming without a request",
      { source: "incoming" },
      "model not configured: incoming request",
    ],
  ])("is not configured with %s", (_, input, message) => {
    const made = pool.clientFor(modelSchema.parse(input), undefined);
    expect(made).toBeInstanceOf(ModelError);
    expect((made as ModelError).message).toBe(message);
    expect((made as ModelError).failure).toBe("not_configured");
  });

  it.each<[string, number[], number]>([
    ["500 then 503", [500, 503], 3],
    ["429", [429], 2],
    ["502", [502], 2],
  ])("retries after %s and succeeds", async (_, statuses, attempts) => {
    model.reply(...statuses.map((status) => ({ status })), { text: "finally" });
    const answer = await client({ base_url: model.openaiUrl }).complete(prompt, signal);
    expect(answer.text).toBe("finally");
    expect(answer.attempts).toBe(attempts);
    expect(model.requests).toHaveLength(attempts);
  });

  it.each<[number, number, number]>([
    [400, 2, 1],
    [401, 2, 1],
    [404, 2, 1],
    [500, 2, 3],
    [429, 0, 1],
  ])("gives up on HTTP %i with max_retries %i after %i requests", async (status, retries, sent) => {
    model.script(() => ({ status }));
    const error = await failure(
      client({ base_url: model.openaiUrl, max_retries: retries }).complete(prompt, signal),
    );
    expect(error).toBeInstanceOf(ModelStatusError);
    expect((error as ModelStatusError).status).toBe(status);
    expect((error as ModelStatusError).message).not.toContain("127.0.0.1");
    expect(model.requests).toHaveLength(sent);
  });

  it.each([
    ["not JSON", "<html>oops</html>", "unusable model response: body is not JSON"],
    [
      "no choices",
      '{"choices":[]}',
      "unusable model response: no text in choices[0].message.content",
    ],
    ["a JSON array", "[1,2]", "unusable model response: body is not a JSON object"],
    [
      "empty content",
      '{"choices":[{"message":{"content":"  "}}]}',
      "unusable model response: no text in choices[0].message.content",
    ],
  ])("rejects a 200 with %s and does not retry", async (_, garbage, message) => {
    model.reply({ garbage });
    const error = await failure(client({ base_url: model.openaiUrl }).complete(prompt, signal));
    expect(error).toBeInstanceOf(ModelResponseError);
    expect((error as Error).message).toBe(message);
    expect(model.requests).toHaveLength(1);
  });

  it("rejects an Anthropic answer without a text block", async () => {
    model.reply({ garbage: '{"content":[{"type":"tool_use","id":"x","name":"y","input":{}}]}' });
    const error = await failure(
      client({ provider: "anthropic", base_url: model.anthropicUrl }).complete(prompt, signal),
    );
    expect((error as Error).message).toBe("unusable model response: no text block in content");
  });

  it("times out a model that never answers", async () => {
    // A server of its own: the abandoned request may still land after the test.
    const own = await ScriptedModel.start();
    own.script(() => ({ hang: true }));
    const error = await failure(
      client({ base_url: own.openaiUrl, timeout_ms: 50 }).complete(prompt, signal),
    );
    await own.close();
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as Error).message).toBe("no model answer within 50 ms");
  });

  it("stops when the caller aborts", async () => {
    model.reply({ hang: true });
    const controller = new AbortController();
    const pending = failure(
      client({ base_url: model.openaiUrl }).complete(prompt, controller.signal),
    );
    await vi.waitFor(() => expect(model.requests).toHaveLength(1));
    controller.abort();
    expect(await pending).toBeInstanceOf(ModelAbortedError);
  });

  it("reports an endpoint that refuses connections as unreachable", async () => {
    const closed = await ScriptedModel.start();
    const url = closed.openaiUrl;
    await closed.close();
    const error = await failure(client({ base_url: url, max_retries: 0 }).complete(prompt, signal));
    expect(error).toBeInstanceOf(ModelUnreachableError);
    expect((error as Error).message).toBe("model endpoint unreachable (ECONNREFUSED)");
  });

  it("keeps at most max_concurrency calls in flight per endpoint", async () => {
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    model.script(() => ({ until, reply: { text: "done" } }));
    const calls = Array.from({ length: 5 }, () =>
      client({ base_url: model.openaiUrl, max_concurrency: 2 }).complete(prompt, signal),
    );
    await vi.waitFor(() => expect(model.requests).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(model.requests).toHaveLength(2);
    release();
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => answer.text)).toEqual(Array(5).fill("done"));
    expect(model.maxInFlight).toBe(2);
  });
});

describe("model client with source: incoming", () => {
  const incoming = {
    provider: "anthropic" as const,
    model: "claude-big",
    headers: { "x-api-key": "sk-client", "anthropic-version": "2023-06-01" },
    baseUrl: "",
  };

  it("calls the request's provider with its model and credentials", async () => {
    model.reply({ text: "ok" });
    const made = pool.clientFor(modelSchema.parse({ source: "incoming" }), {
      ...incoming,
      baseUrl: model.anthropicUrl,
    });
    if (made instanceof ModelError) throw made;
    await made.complete(prompt, signal);
    const [request] = model.requests;
    expect(request?.path).toBe("/v1/messages");
    expect(request?.model).toBe("claude-big");
    expect(request?.headers["x-api-key"]).toBe("sk-client");
  });

  it("uses the configured model and base_url under the request's credentials", async () => {
    model.reply({ text: "ok" });
    const made = pool.clientFor(
      modelSchema.parse({
        source: "incoming",
        model: "claude-small",
        base_url: model.anthropicUrl,
      }),
      incoming,
    );
    if (made instanceof ModelError) throw made;
    await made.complete(prompt, signal);
    expect(model.requests[0]?.model).toBe("claude-small");
  });

  it.each<[string, Record<string, string>, string | undefined, string]>([
    ["no credentials", { "anthropic-version": "2023-06-01" }, "m", "incoming credentials"],
    ["no model", { "x-api-key": "k" }, undefined, "incoming model"],
  ])("is not configured with %s", (_, headers, requestModel, missing) => {
    const made = pool.clientFor(modelSchema.parse({ source: "incoming" }), {
      provider: "openai",
      model: requestModel,
      headers,
      baseUrl: "http://127.0.0.1:9/v1",
    });
    expect((made as ModelError).message).toBe(`model not configured: ${missing}`);
  });
});
