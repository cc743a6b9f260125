import { describe, expect, it } from "vitest";
import { replayTurns } from "../../bench/turns.js";

const call = (id: string) =>
  `{"id":"${id}","type":"function","function":{"name":"Bash","arguments":"{}"}}`;

describe("replayTurns", () => {
  it("cuts an OpenAI body after the last tool message of each assistant turn", () => {
    const system = '{"role":"system","content":"s"}';
    const user = '{"role":"user","content":"u"}';
    const first = `{"role":"assistant","content":null,"tool_calls":[${call("a")},${call("b")}]}`;
    const toolA = '{"role":"tool","tool_call_id":"a","content":"A"}';
    const toolB = '{"content":"B","role":"tool","tool_call_id":"b"}';
    const second = `{"role":"assistant","content":null,"tool_calls":[${call("c")}]}`;
    const toolC = '{"role":"tool","tool_call_id":"c","content":"C"}';
    const all = [system, user, first, toolA, toolB, second, toolC];
    const body = `{"model":"m","messages":[${all.join(", ")}],"temperature":1.0}`;
    expect(replayTurns("openai", body)).toEqual([
      `{"model":"m","messages":[${all.slice(0, 5).join(",")}],"temperature":1.0}`,
      `{"model":"m","messages":[${all.join(",")}],"temperature":1.0}`,
    ]);
  });

  it("cuts an Anthropic body after each user message holding tool results", () => {
    const user = '{"role":"user","content":"u"}';
    const use = (id: string) =>
      `{"role":"assistant","content":[{"type":"tool_use","id":"${id}","name":"Bash","input":{}}]}`;
    const result = (id: string) =>
      `{"role":"user","content":[{"type":"tool_result","tool_use_id":"${id}","content":"x"}]}`;
    const text = '{"role":"user","content":[{"type":"text","text":"more"}]}';
    const all = [user, use("a"), result("a"), text, use("b"), result("b")];
    const body = `{"system":"s","messages":[${all.join(",")}]}`;
    expect(replayTurns("anthropic", body)).toEqual([
      `{"system":"s","messages":[${all.slice(0, 3).join(",")}]}`,
      body,
    ]);
  });

  it("gives no turns for a body without tool outputs", () => {
    expect(replayTurns("openai", '{"messages":[{"role":"user","content":"hi"}]}')).toEqual([]);
  });

  it.each(['{"model":"m"}', "[]"])("throws for %s", (body) => {
    expect(() => replayTurns("openai", body)).toThrow("body has no messages array");
  });
});
