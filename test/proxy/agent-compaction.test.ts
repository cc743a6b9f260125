import { afterEach, describe, expect, it } from "vitest";
import {
  anthropicConversation,
  type Harness,
  MASKED_ID,
  responsesConversation,
  startHarness,
} from "../support/proxy-harness.js";
import type { ScriptedReply } from "../support/scripted-upstream.js";

/**
 * The agent's own compaction through the proxy (§4a "Live sessions"): the summary request goes
 * upstream with its conversation as it was last sent — markers included — whatever its tools,
 * and the history the agent sends after it is announced as diverged.
 */
const CLAUDE_SUMMARY_PROMPT =
  "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.";
const CODEX_CHECKPOINT_PROMPT =
  "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.";

const ANTHROPIC_ANSWER: ScriptedReply = {
  json: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [{ type: "text", text: "<summary>Work so far.</summary>" }],
    stop_reason: "end_turn",
  },
};
const RESPONSES_ANSWER: ScriptedReply = {
  json: {
    id: "resp_1",
    object: "response",
    status: "completed",
    output: [
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Summary." }],
      },
    ],
  },
};

type Json = Record<string, unknown> & { messages?: unknown[]; input?: unknown[] };

describe("the agent's own compaction through the proxy (§4a)", () => {
  let harness: Harness;
  afterEach(() => harness.close());

  async function post(path: string, body: Json, headers: Record<string, string> = {}) {
    const response = await fetch(`http://127.0.0.1:${harness.port}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", "x-api-key": "k", ...headers },
    });
    await response.text();
    return `${response.headers.get("x-context-guru-cache")}/${response.headers.get("x-context-guru-cache-reason")}`;
  }
  const sent = (index: number): Json => harness.upstream.requests[index]?.json as Json;

  it("Claude Code's summary request carries the conversation as last sent, markers included", async () => {
    harness = await startHarness();
    harness.upstream.script(() => ANTHROPIC_ANSWER);
    const metadata = { user_id: '{"session_id":"7f1c"}' };
    const turn = { ...anthropicConversation(), metadata } as unknown as Json;
    expect(await post("/v1/messages", turn, { "x-context-guru-cache": "cold" })).toBe(
      "cold/header",
    );
    const last = sent(0).messages ?? [];
    expect(JSON.stringify(last)).toContain(`<<cg:${MASKED_ID}>>`);
    // The prompt rides as an extra text block of the last user message, as Claude Code sends it.
    const messages = structuredClone(turn.messages ?? []) as { content: unknown[] }[];
    messages.at(-1)?.content.push({ type: "text", text: CLAUDE_SUMMARY_PROMPT });
    expect(await post("/v1/messages", { ...turn, messages })).toBe("warm/recent");
    const summary = sent(1).messages ?? [];
    expect(summary.slice(0, -1)).toEqual(last.slice(0, -1));
    expect(JSON.stringify(summary)).toContain(`<<cg:${MASKED_ID}>>`);
    // The next turn starts over from the summary: its history was rewritten.
    const after = {
      ...turn,
      messages: [
        { role: "user", content: "This session is being continued. Summary: work so far." },
        ...(turn.messages ?? []).slice(-2),
      ],
    };
    expect(await post("/v1/messages", after)).toBe("cold/diverged");
  });

  it("Codex's checkpoint request with no tools, and its compaction_trigger, go as last sent", async () => {
    harness = await startHarness();
    harness.upstream.script(() => RESPONSES_ANSWER);
    const turn = { ...responsesConversation(), prompt_cache_key: "thread-1" } as unknown as Json;
    expect(await post("/v1/responses", turn, { "x-context-guru-cache": "cold" })).toBe(
      "cold/header",
    );
    const last = sent(0).input ?? [];
    expect(JSON.stringify(last)).toContain(`<<cg:${MASKED_ID}>>`);
    // Local compaction: other tools (none), a trailing user message, the turn metadata header.
    const checkpoint = {
      ...turn,
      tools: [],
      input: [
        ...(turn.input ?? []),
        {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: CODEX_CHECKPOINT_PROMPT }],
        },
      ],
    };
    const metadata = { "x-codex-turn-metadata": '{"turn_id":"t2","request_kind":"compaction"}' };
    expect(await post("/v1/responses", checkpoint, metadata)).toBe("warm/recent");
    expect((sent(1).input ?? []).slice(0, last.length)).toEqual(last);
    expect(sent(1).tools).toEqual([]);
    // Remote compaction: the turn's own tools and a trailing compaction_trigger item.
    const trigger = { ...turn, input: [...(turn.input ?? []), { type: "compaction_trigger" }] };
    expect(await post("/v1/responses", trigger)).toBe("warm/recent");
    expect(sent(2).input).toEqual([...last, { type: "compaction_trigger" }]);
    expect(sent(2).tools).toEqual(sent(0).tools);
    // The history after it keeps the first item and starts over from the compaction item.
    const after = {
      ...turn,
      input: [
        (turn.input ?? [])[0],
        { type: "compaction", encrypted_content: "gAAAAB-compacted" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "go on" }] },
      ],
    };
    expect(await post("/v1/responses", after)).toBe("cold/diverged");
    expect((sent(3).input ?? [])[1]).toEqual({
      type: "compaction",
      encrypted_content: "gAAAAB-compacted",
    });
  });
});
