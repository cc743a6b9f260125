import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { isRecord } from "../../src/wire/is-record.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { CLEAN, COLD, MASK_BY_AGE, postCompact, testApp } from "../support/app.js";
import { anthropicBody, logOutput, openaiBody } from "../support/bodies.js";

/**
 * §4a "Live sessions": what real agents send. The ledger's chain starts from the request's tools
 * and system; a session's first request is given the expand tool; a conversation that leaves
 * what the ledger holds at an already-sent message is cold from there, and says so.
 */
const OUTPUTS = Array.from({ length: 8 }, (_, index) => logOutput(80, `o${index}`));
const MASKED = "[older tool output masked";

function messageTexts(text: string): string[] {
  return (scanBody(text)?.messages ?? []).map((span) => text.slice(span.start, span.end));
}
function toolNames(text: string): string[] {
  const tools: unknown = JSON.parse(text).tools;
  if (!Array.isArray(tools)) return [];
  return tools.map((tool) =>
    isRecord(tool) && isRecord(tool.function) ? String(tool.function.name) : String(tool?.name),
  );
}
const masked = (text: string) => messageTexts(text).filter((m) => m.includes(MASKED)).length;

function session(name: string, config = {}) {
  const { app, store } = testApp({ ...MASK_BY_AGE, ...config });
  const send = async (body: string, headers: Record<string, string> = {}) => {
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-session": name, ...headers },
    });
    return {
      text: await response.text(),
      cache: `${response.headers.get("x-context-guru-cache")}/${response.headers.get("x-context-guru-cache-reason")}`,
    };
  };
  return { app, store, send };
}

/** `body` with message `index` of its conversation replaced by `message`. */
function rewritten(body: string, index: number, message: unknown): string {
  const parsed = JSON.parse(body);
  parsed.messages[index] = message;
  return JSON.stringify(parsed);
}

describe("a session's first request (§4a)", () => {
  it("gets the expand tool, though a tool-less title request of the session came first", async () => {
    const { send } = session("claude-code");
    const title = JSON.parse(anthropicBody([]));
    delete title.tools;
    title.system = "Generate a concise title for this conversation.";
    expect((await send(JSON.stringify(title))).cache).toBe("cold/first");
    const first = await send(anthropicBody([]));
    expect(first.cache).toBe("cold/first");
    expect(toolNames(first.text)).toEqual(["Bash", "context_guru_expand"]);
    // From then on every reduction may carry a marker: a repeated output is marked on a warm turn.
    const repeated = [OUTPUTS[0] as string, OUTPUTS[1] as string, OUTPUTS[0] as string];
    const warm = await send(anthropicBody(repeated));
    expect(warm.cache).toBe("warm/recent");
    expect(toolNames(warm.text)).toEqual(["Bash", "context_guru_expand"]);
    expect(markerIds(messageTexts(warm.text).join(","))).toHaveLength(1);
  });

  it("of a Responses body gets the flat expand tool; an unknown history with turns does not", async () => {
    const { send } = session("codex");
    const tools = [{ type: "function", name: "shell", parameters: { type: "object" } }];
    const user = { type: "message", role: "user", content: [{ type: "input_text", text: "fix" }] };
    const first = await send(JSON.stringify({ model: "m", input: [user], tools }));
    expect(first.cache).toBe("cold/first");
    expect(JSON.parse(first.text).tools.at(-1)).toMatchObject({
      type: "function",
      name: "context_guru_expand",
    });
    const other = session("codex-restarted");
    const call = { type: "function_call", call_id: "c1", name: "shell", arguments: "{}" };
    const output = { type: "function_call_output", call_id: "c1", output: "ok" };
    const unknown = await other.send(
      JSON.stringify({ model: "m", input: [user, call, output], tools }),
    );
    expect(unknown.cache).toBe("warm/unknown");
    expect(JSON.parse(unknown.text).tools).toHaveLength(1);
  });

  it("in clean mode adds no tool", async () => {
    const { send } = session("clean", CLEAN);
    const first = await send(anthropicBody([]));
    expect(first.cache).toBe("cold/first");
    expect(toolNames(first.text)).toEqual(["Bash"]);
  });
});

describe("the chain starts from the tools and the system prompt (§4a)", () => {
  it("a side call with other tools shares nothing with the agent's turns", async () => {
    const { send } = session("side-call");
    const warm = await send(openaiBody(OUTPUTS.slice(0, 5)));
    expect([warm.cache, masked(warm.text)]).toEqual(["warm/unknown", 0]);
    // The same messages with other tools: nothing of them was sent with these tools, so the
    // prompt's cache is cold from its first message, and it is decided on its own.
    const side = await send(openaiBody(OUTPUTS.slice(0, 5), { tools: [] }));
    expect([side.cache, masked(side.text)]).toEqual(["cold/diverged", 2]);
    // The agent's next turn still stands on its own conversation and gives it back as sent.
    const next = await send(openaiBody(OUTPUTS.slice(0, 6)));
    expect([next.cache, masked(next.text)]).toEqual(["warm/recent", 0]);
    const sent = messageTexts(warm.text);
    expect(messageTexts(next.text).slice(0, sent.length)).toEqual(sent);
  });
});

describe("divergence (§4a)", () => {
  it("a named conversation rewritten at an already-sent message is cold from there, and says so", async () => {
    const { send } = session("diverging");
    const cold = await send(openaiBody(OUTPUTS.slice(0, 5)), COLD);
    const sent = messageTexts(cold.text);
    expect(masked(cold.text)).toBe(2);
    // The client rewrites the output of its third call (message 7) and goes on.
    const rewrite = { role: "tool", tool_call_id: "call_2", content: logOutput(80, "rewritten") };
    const body = rewritten(openaiBody(OUTPUTS.slice(0, 7)), 7, rewrite);
    const diverged = await send(body);
    expect(diverged.cache).toBe("cold/diverged");
    const returned = messageTexts(diverged.text);
    // Everything before the rewritten message is given back as it was sent, masks included.
    expect(returned.slice(0, 7)).toEqual(sent.slice(0, 7));
    // From it on the head is decided as on a cold turn: outputs older than the newest three go.
    expect(returned.slice(7).filter((message) => message.includes(MASKED))).toHaveLength(2);
    expect(returned[7]).toContain(MASKED);
    // The next turn extends what was just returned: warm, byte for byte.
    const next = await send(rewritten(openaiBody(OUTPUTS.slice(0, 8)), 7, rewrite));
    expect(next.cache).toBe("warm/recent");
    expect(messageTexts(next.text).slice(0, returned.length)).toEqual(returned);
  });

  it("a conversation that drops its history after the agent's compaction is cold from the start", async () => {
    const { send } = session("after-compaction");
    await send(anthropicBody(OUTPUTS.slice(0, 4)), COLD);
    const summary = JSON.parse(anthropicBody(OUTPUTS.slice(4, 6)));
    summary.messages[0] = { role: "user", content: "Summary of the work so far: …" };
    expect((await send(JSON.stringify(summary))).cache).toBe("cold/diverged");
  });

  it("a repeat of an earlier turn, and a retry, stand on what was sent", async () => {
    const { send } = session("retry");
    const five = await send(openaiBody(OUTPUTS.slice(0, 5)), COLD);
    await send(openaiBody(OUTPUTS.slice(0, 6)));
    const again = await send(openaiBody(OUTPUTS.slice(0, 5)));
    expect(again.cache).toBe("warm/recent");
    expect(again.text).toBe(five.text);
  });

  it("under a derived key, a request that parts from a head is not told from another conversation", async () => {
    const { app } = testApp();
    await postCompact(app, openaiBody(OUTPUTS.slice(0, 5)), { headers: COLD });
    const other = rewritten(openaiBody(OUTPUTS.slice(0, 6)), 9, {
      role: "tool",
      tool_call_id: "call_3",
      content: logOutput(80, "another"),
    });
    const response = await postCompact(app, other);
    expect(response.headers.get("x-context-guru-cache")).toBe("warm");
  });
});

describe("after an expand (§4a)", () => {
  it("the expanded original keeps its marker on warm turns, and is sent whole where the prefix is cold", async () => {
    const { send, store } = session("expanded");
    const cold = await send(openaiBody(OUTPUTS.slice(0, 5)), COLD);
    const [id] = markerIds(messageTexts(cold.text)[3] as string);
    expect(id).toBeDefined();
    await store.keep("expanded", [id as string]);
    const warm = await send(openaiBody(OUTPUTS.slice(0, 6)));
    expect(warm.cache).toBe("warm/recent");
    expect(messageTexts(warm.text)[3]).toContain(`<<cg:${id}>>`);
    const next = await send(openaiBody(OUTPUTS.slice(0, 7)), COLD);
    expect(messageTexts(next.text)[3]).toContain(JSON.stringify(OUTPUTS[0]).slice(1, -1));
  });
});

describe("tools or a system prompt the session was never sent with (§4a)", () => {
  it("a named conversation whose system prompt changed is cold from its first message", async () => {
    const { send } = session("system-changed");
    await send(anthropicBody(OUTPUTS.slice(0, 4)), COLD);
    const changed = anthropicBody(OUTPUTS.slice(0, 5), { system: "You are a coding agent. v2" });
    expect((await send(changed)).cache).toBe("cold/diverged");
  });
});
