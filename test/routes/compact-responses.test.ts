import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { COLD, postCompact, testApp } from "../support/app.js";
import { jsonArrayOutput, logOutput } from "../support/bodies.js";

/** A Responses body whose function_call_output items hold `outputs`, each after its call. */
function responsesBody(outputs: readonly string[], extra = ""): string {
  const input: unknown[] = [
    { type: "message", role: "user", content: [{ type: "input_text", text: "build it" }] },
  ];
  outputs.forEach((output, index) => {
    input.push({
      type: "function_call",
      call_id: `call_${index}`,
      name: "shell",
      arguments: JSON.stringify({ command: ["bash", "-lc", "npm run build"] }),
    });
    input.push({ type: "function_call_output", call_id: `call_${index}`, output });
  });
  const tools = [{ type: "function", name: "shell", parameters: { type: "object" } }];
  return `{"model":"gpt-5","instructions":"Be brief.",${extra}"input":${JSON.stringify(input)},"tools":${JSON.stringify(tools)}}`;
}

describe("POST /compact on Responses bodies", () => {
  const { app } = testApp();

  it("compacts function_call_output strings, detected without a provider query", async () => {
    const body = responsesBody([logOutput(400), jsonArrayOutput(40)]);
    const response = await postCompact(app, body, { headers: COLD });
    const out = await response.text();
    expect(response.status).toBe(200);
    expect(out.length).toBeLessThan(body.length);
    expect(Number(response.headers.get("x-context-guru-tokens-after"))).toBeLessThan(
      Number(response.headers.get("x-context-guru-tokens-before")),
    );
    const sent = JSON.parse(body) as { input: Array<Record<string, unknown>> };
    const got = JSON.parse(out) as {
      input: Array<Record<string, unknown>>;
      tools: Array<Record<string, unknown>>;
    };
    expect(got.input.map((item) => item.type)).toEqual(sent.input.map((item) => item.type));
    const ids = markerIds(JSON.stringify(got.input));
    expect(Number(response.headers.get("x-context-guru-markers"))).toBe(new Set(ids).size);
    if (ids.length > 0) expect(got.tools.at(-1)?.name).toBe("context_guru_expand");
    const rehydrated = await app.request("/rehydrate", {
      method: "POST",
      body: out,
      headers: { "x-context-guru-session": response.headers.get("x-context-guru-session") ?? "" },
    });
    expect(await rehydrated.text()).toBe(body);
  });

  it("the chat reading of the same bytes finds nothing to compact", async () => {
    const body = responsesBody([logOutput(400)]);
    const response = await postCompact(app, body, { headers: COLD, query: "?provider=openai" });
    expect(await response.text()).toBe(body);
  });

  it.each([
    ["not JSON", '{"input":[', ""],
    ["input a string", '{"model":"m","input":"hello"}', ""],
    ["no input under provider=responses", '{"model":"m","messages":[]}', "?provider=responses"],
    ["input not an array", '{"input":{"type":"message"}}', "?provider=responses"],
    ["items of wrong types", '{"input":[1,"two",null,[3],{"type":7,"output":{"x":1}}]}', ""],
    [
      "a repeated output key",
      `{"input":[{"type":"function_call_output","call_id":"c","output":${JSON.stringify(logOutput(300))},"output":"b"}]}`,
      "",
    ],
  ])("%s → 200 with the original bytes", async (_, body, query) => {
    const response = await postCompact(app, body, { query, headers: COLD });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(body);
  });

  it("over the body limit → 413 with a JSON error", async () => {
    const small = testApp({ limits: { body_bytes: 100 } });
    const response = await postCompact(small.app, responsesBody(["x".repeat(200)]));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "request body exceeds 100 bytes" });
  });

  it("rehydrate names responses among the provider values", async () => {
    const response = await app.request("/rehydrate?provider=gemini", {
      method: "POST",
      body: responsesBody([]),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "query parameter provider must be openai, anthropic, responses or auto",
    });
  });
});
