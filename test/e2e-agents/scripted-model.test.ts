import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readRequest } from "../../scripts/e2e-agents/conversation.js";
import { promptTokens } from "../../scripts/e2e-agents/model/prompt-cache.js";
import { ScriptedModel } from "../../scripts/e2e-agents/model/server.js";

/**
 * The scripted model on a real loopback socket, read by the official clients: what it streams
 * is what the API streams, so the clients rebuild exactly the blocks and items it meant.
 */

const REPO = "/repo";
const anthropicTools = ["Bash", "Read", "Edit"].map((name) => ({
  name,
  description: name,
  input_schema: { type: "object" as const, properties: {} },
}));
const signatureOf = (model: ScriptedModel, index: number) => model.requests[index]?.emitted[0];

describe("the scripted model through the official clients", () => {
  let model: ScriptedModel;
  let url: string;
  beforeEach(async () => {
    let clock = 0;
    model = new ScriptedModel({ repoDir: REPO, now: () => clock++ });
    url = await model.listen();
  });
  afterEach(() => model.close());

  it("streams an Anthropic message: thinking with its signature, then the session's first move", async () => {
    const client = new Anthropic({ baseURL: url, apiKey: "k", maxRetries: 0 });
    const message = await client.messages
      .stream({
        model: "claude-opus-4-8",
        max_tokens: 100,
        tools: anthropicTools,
        messages: [{ role: "user", content: "fix it" }],
      })
      .finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      {
        type: "thinking",
        thinking: "Scripted reasoning before m01.",
        signature: signatureOf(model, 0),
      },
      {
        type: "tool_use",
        id: "toolu_e2e_m01",
        name: "Read",
        input: { file_path: "/repo/src/calc.mjs" },
      },
    ]);
    expect(signatureOf(model, 0)).toMatch(/^[A-Za-z0-9+/]{300,}={0,2}$/);
    expect(model.requests[0]?.kind).toBe("turn");
  });

  it("answers a later turn with the next move, as one JSON body when not streaming", async () => {
    const client = new Anthropic({ baseURL: url, apiKey: "k", maxRetries: 0 });
    const message = await client.messages.create({
      model: "claude-opus-4-8",
      max_tokens: 100,
      tools: anthropicTools,
      messages: [
        { role: "user", content: "fix it" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_e2e_m04", name: "Bash", input: {} }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_e2e_m04", content: "1\n2" }],
        },
      ],
    });
    expect(message.content[1]).toEqual({
      type: "tool_use",
      id: "toolu_e2e_m05",
      name: "Bash",
      input: { command: 'grep -rn "TODO" src', description: 'Run grep -rn "TODO" src' },
    });
  });

  it("counts what it would read, and lists its models, for both clients", async () => {
    const anthropic = new Anthropic({ baseURL: url, apiKey: "k", maxRetries: 0 });
    const body = {
      model: "claude-opus-4-8",
      messages: [{ role: "user" as const, content: "count me" }],
    };
    const counted = await anthropic.messages.countTokens(body);
    expect(counted.input_tokens).toBe(
      promptTokens(readRequest("anthropic", JSON.stringify(body))!),
    );
    expect(model.requests[0]?.counted).toBe(counted.input_tokens);
    const anthropicModels = await anthropic.models.list();
    expect(anthropicModels.data.map((entry) => entry.id)).toEqual(["claude-opus-4-8", "gpt-5.5"]);
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0 });
    const openaiModels = await openai.models.list();
    expect(openaiModels.data.map((entry) => entry.id)).toEqual(["claude-opus-4-8", "gpt-5.5"]);
  });

  it("streams Responses items: encrypted reasoning, then apply_patch as a custom tool call", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0 });
    const response = await client.responses
      .stream({
        model: "gpt-5.5",
        tools: [{ type: "function", name: "exec_command", parameters: {}, strict: false }],
        input: [
          { role: "user", content: "fix it" },
          { type: "function_call", call_id: "call_e2e_m06", name: "exec_command", arguments: "{}" },
          { type: "function_call_output", call_id: "call_e2e_m06", output: "FAIL add" },
        ],
      })
      .finalResponse();
    const [reasoning, patch] = response.output;
    expect(reasoning).toMatchObject({ type: "reasoning", summary: [] });
    expect(reasoning?.type === "reasoning" && reasoning.encrypted_content).toBe(
      model.requests[0]?.emitted[0],
    );
    expect(patch).toMatchObject({
      type: "custom_tool_call",
      call_id: "call_e2e_m07",
      name: "apply_patch",
      input:
        "*** Begin Patch\n*** Update File: src/calc.mjs\n@@\n-  return a - b;\n+  return a + b;\n*** End Patch\n",
    });
    expect(response.usage?.input_tokens).toBe(model.requests[0]?.usage?.promptTokens);
  });

  it("answers a compaction_trigger with one compaction item, whose content tells the step", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0 });
    const response = await client.responses.create({
      model: "gpt-5.5",
      tools: [{ type: "function", name: "exec_command", parameters: {}, strict: false }],
      input: [
        { role: "user", content: "fix it" },
        { type: "function_call", call_id: "call_e2e_m03", name: "exec_command", arguments: "{}" },
        { type: "function_call_output", call_id: "call_e2e_m03", output: "..." },
        { type: "compaction_trigger" },
      ] as unknown as OpenAI.Responses.ResponseInput,
    });
    expect(response.output).toHaveLength(1);
    const item = response.output[0] as unknown as { type: string; encrypted_content: string };
    expect(item.type).toBe("compaction");
    expect(
      Buffer.from(item.encrypted_content.slice("e2ecmp.".length), "base64").toString(),
    ).toContain("[e2e-m03]");
    expect(model.requests[0]?.kind).toBe("compaction_trigger");
  });

  it("reports the part of a prompt an earlier one of the same session shared as cached", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0 });
    const first = [{ role: "user" as const, content: "fix it ".repeat(200) }];
    await client.responses.create({ model: "gpt-5.5", input: first });
    const second = await client.responses.create({
      model: "gpt-5.5",
      input: [...first, { role: "user", content: "and more" }],
    });
    const usage = model.requests[1]?.usage;
    expect(model.requests[0]?.usage?.cachedTokens).toBe(0);
    expect(usage?.cachedTokens).toBeGreaterThan(0);
    expect(usage?.cachedTokens).toBeLessThan(usage?.promptTokens ?? 0);
    expect(second.usage?.input_tokens_details.cached_tokens).toBe(usage?.cachedTokens);
  });
});
