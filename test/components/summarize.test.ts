import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { Compactor } from "../../src/compact/compactor.js";
import { chooseCut } from "../../src/components/summarize/cut.js";
import { createSummarize } from "../../src/components/summarize.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput, MarkerMode } from "../../src/config/schema.js";
import { ModelPool } from "../../src/model/pool.js";
import type { Registry } from "../../src/pipeline/run.js";
import type { MessageView } from "../../src/pipeline/types.js";
import { rehydrate } from "../../src/rehydrate.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { OPENAI_EXPAND_TOOL } from "../../src/wire/shapes/openai-chat/expand.js";
import { idOf } from "../support/component-context.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";
import { compactWithModelReply } from "../support/model-failure.js";
import { type ModelReply, ScriptedModel } from "../support/scripted-model.js";

const model = await ScriptedModel.start();
afterAll(() => model.close());
beforeEach(() => model.reset());

const SUMMARY = "The agent ran the tests, read src/auth.ts and found the expired-token check.";
const log = (label: string) =>
  Array.from({ length: 30 }, (_, line) => `${label} line ${line + 1}: compiled module ok`).join(
    "\n",
  );

type Message = Record<string, unknown>;

/** The agent's own tool, so the model can call tools and full markers can be expanded (§8.1). */
const TOOLS = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];
const ANTHROPIC_TOOLS = [{ name: "Bash", input_schema: { type: "object" } }];
/** Summaries reach back: they are made on a request whose head may be re-decided (§4a). */
const COLD = { cache: "cold" } as const;

const call = (id: string, command: string) => ({
  id,
  type: "function",
  function: { name: "Bash", arguments: JSON.stringify({ command }) },
});

/** system, task, five tool rounds (one of them parallel), a closing answer and a new question. */
function openaiMessages(): Message[] {
  return [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the failing auth test." },
    { role: "assistant", content: null, tool_calls: [call("c1", "npm test")] },
    { role: "tool", tool_call_id: "c1", content: log("test") },
    {
      role: "assistant",
      content: "Reading the module.",
      tool_calls: [call("c2", "cat src/auth.ts")],
    },
    { role: "tool", tool_call_id: "c2", content: log("auth") },
    { role: "assistant", content: null, tool_calls: [call("c3", "git diff")] },
    { role: "tool", tool_call_id: "c3", content: log("diff") },
    {
      role: "assistant",
      content: null,
      tool_calls: [call("c4", "npm run lint"), call("c5", "npm run build")],
    },
    { role: "tool", tool_call_id: "c4", content: log("lint") },
    { role: "tool", tool_call_id: "c5", content: log("build") },
    { role: "assistant", content: "Fixed the expiry check; tests pass." },
    { role: "user", content: "Now add a test for the refresh path." },
  ];
}

/** The same conversation in Anthropic's shape. */
function anthropicMessages(): Message[] {
  const use = (id: string, command: string) => ({
    type: "tool_use",
    id,
    name: "Bash",
    input: { command },
  });
  const result = (id: string, label: string) => ({
    role: "user",
    content: [{ type: "tool_result", tool_use_id: id, content: log(label) }],
  });
  return [
    { role: "user", content: "Fix the failing auth test." },
    {
      role: "assistant",
      content: [{ type: "text", text: "Running tests." }, use("t1", "npm test")],
    },
    result("t1", "test"),
    { role: "assistant", content: [use("t2", "cat src/auth.ts")] },
    result("t2", "auth"),
    { role: "assistant", content: [use("t3", "git diff")] },
    result("t3", "diff"),
    { role: "assistant", content: [use("t4", "npm run lint"), use("t5", "npm run build")] },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t4", content: log("lint") },
        { type: "tool_result", tool_use_id: "t5", content: log("build") },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "Fixed; tests pass." }] },
    { role: "user", content: "Now add a test for the refresh path." },
  ];
}

const raw = (messages: readonly Message[], from: number, to: number) =>
  messages
    .slice(from, to)
    .map((message) => JSON.stringify(message))
    .join(",");

function setup(
  settings: {
    mode?: MarkerMode;
    store?: boolean;
    keepLast?: number;
    model?: Record<string, unknown>;
    config?: ConfigInput;
    resummarize?: number;
  } = {},
) {
  const config = parseConfig({
    pipeline: ["summarize"],
    marker_mode: settings.mode ?? "full",
    store: { enabled: settings.store ?? true },
    components: {
      summarize: {
        keep_last: settings.keepLast ?? 3,
        resummarize_tokens: settings.resummarize ?? 8000,
        model: { base_url: model.openaiUrl, model: "cheap-1", max_retries: 0, ...settings.model },
      },
    },
    ...settings.config,
  });
  const store: Store = createStore(config.store);
  const registry: Registry = { summarize: createSummarize(new ModelPool({ retryBaseMs: 1 })) };
  const compactor = new Compactor({ config, store, registry, hashKey: TEST_HASH_KEY });
  return { config, store, registry, compactor };
}

const message = (text: string, marker: string) =>
  marker === ""
    ? `[summary of 8 earlier messages]\n${text}`
    : `[summary of 8 earlier messages]\n${text}\n${marker}`;

describe("summarize through the compactor", () => {
  it.each<[MarkerMode, boolean, (span: string) => string]>([
    ["full", true, (span) => `<<cg:${idOf(span)}>>`],
    ["summary", true, () => "\u27eacg\u27eb"],
    ["off", true, () => ""],
    ["full", false, () => ""],
  ])(
    "replaces the middle of an OpenAI transcript (%s mode, store %s)",
    async (mode, store, marker) => {
      model.reply({ text: `  ${SUMMARY}\n` });
      const { compactor, store: kept } = setup({ mode, store });
      const messages = openaiMessages();
      const body = JSON.stringify({ model: "gpt-x", messages, tools: TOOLS });
      const result = await compactor.compact(body, COLD);
      // keep_last 3 puts the naive cut on tool result c5: the cut moves back to its assistant call.
      const span = raw(messages, 2, 8);
      const summary = {
        role: "user",
        content: message(SUMMARY, marker(span)).replace("8 earlier", "6 earlier"),
      };
      expect(result.text).toBe(
        JSON.stringify({
          model: "gpt-x",
          messages: [...messages.slice(0, 2), summary, ...messages.slice(8)],
          tools: mode === "full" && store ? [...TOOLS, OPENAI_EXPAND_TOOL] : TOOLS,
        }),
      );
      const entry = result.report?.components[0];
      expect(entry?.changed).toBe(1);
      expect(entry?.modelCalls).toEqual([
        expect.objectContaining({
          model: "cheap-1",
          outcome: "accepted",
          inputTokens: 100,
          outputTokens: 10,
        }),
      ]);
      expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
      if (mode === "full" && store) {
        expect(entry?.keys).toEqual([idOf(span)]);
        expect(await kept.get(result.session, idOf(span))).toBe(span);
        const back = await rehydrate(result.text, kept, compactor.hash, {
          session: result.session,
        });
        expect(back.text).toBe(body);
      } else {
        expect(entry?.keys).toEqual([]);
      }
    },
  );

  it("sends the rendered middle to the model", async () => {
    model.reply({ text: SUMMARY });
    await setup().compactor.compact(JSON.stringify({ messages: openaiMessages() }), COLD);
    const [request] = model.requests;
    expect(request?.model).toBe("cheap-1");
    expect(request?.prompt).toContain(
      'Messages to condense:\n\n[1] assistant:\ncall Bash({"command":"npm test"})\n\n[2] tool:\ntest line 1: compiled module ok',
    );
    expect(request?.prompt).not.toContain("Fix the failing auth test.");
    expect(request?.prompt).not.toContain("lint line 1");
    expect(request?.system).toContain("at most 350 words");
  });

  it("writes an Anthropic summary block and restores the exact bytes of a pretty-printed body", async () => {
    model.reply({ text: SUMMARY });
    const { compactor, store } = setup({ keepLast: 3 });
    const messages = anthropicMessages();
    const body = JSON.stringify(
      { model: "claude-x", max_tokens: 1024, messages, tools: ANTHROPIC_TOOLS },
      null,
      2,
    );
    const result = await compactor.compact(body, { provider: "anthropic", ...COLD });
    const parsed = JSON.parse(result.text) as { messages: Message[] };
    // keep_last 3 puts the naive cut on the parallel results (message 8): it moves to message 7.
    expect(parsed.messages.map((item) => item.role)).toEqual([
      "user",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    const blocks = (parsed.messages[1]?.content ?? []) as { text: string }[];
    const summaryText = blocks[0]?.text ?? "";
    expect(parsed.messages[1]).toEqual({
      role: "user",
      content: [{ type: "text", text: summaryText }],
    });
    expect(summaryText).toMatch(
      new RegExp(`^\\[summary of 6 earlier messages\\]\\n${SUMMARY}\\n<<cg:[0-9a-f]{16}>>$`),
    );
    expect(parsed.messages.slice(2)).toEqual(messages.slice(7));
    expect(result.text.startsWith(body.slice(0, body.indexOf('"content": "Fix')))).toBe(true);
    const back = await rehydrate(result.text, store, compactor.hash, { session: result.session });
    expect(back.text).toBe(body);
  });

  it.each<[string, ModelReply, Record<string, unknown>, string]>([
    ["answers 500", { status: 500 }, {}, "failed"],
    ["never answers", { hang: true }, { timeout_ms: 50 }, "failed"],
    ["answers garbage", { garbage: "not json at all" }, {}, "failed"],
    ["answers with a marker", { text: `${SUMMARY} <<cg:0123456789abcdef>>` }, {}, "rejected"],
    ["answers nothing", { text: "   " }, {}, "failed"],
  ])("leaves the request unchanged when the model %s", async (_, reply, settings, outcome) => {
    const own = await ScriptedModel.start();
    try {
      own.script(() => reply);
      const { compactor } = setup({ model: { base_url: own.openaiUrl, ...settings } });
      const body = JSON.stringify({ messages: openaiMessages(), tools: TOOLS });
      const result = await compactor.compact(body, COLD);
      expect(result.text).toBe(body);
      expect(result.changed).toBe(false);
      expect(result.report?.components[0]?.modelCalls).toEqual([
        expect.objectContaining({ outcome }),
      ]);
    } finally {
      await own.close();
    }
  });

  it("keeps the messages when the summary would not be smaller", async () => {
    model.reply({ text: "word ".repeat(2000) });
    const { compactor } = setup();
    const body = JSON.stringify({ messages: openaiMessages() });
    const result = await compactor.compact(body, COLD);
    expect(result.text).toBe(body);
    expect(result.report?.components[0]?.dropped).toBe(1);
  });

  it("does nothing without a model", async () => {
    const { compactor } = setup({ model: { base_url: undefined } });
    const body = JSON.stringify({ messages: openaiMessages() });
    const result = await compactor.compact(body, COLD);
    expect(result.text).toBe(body);
    expect(result.report?.components[0]?.modelCalls).toEqual([
      expect.objectContaining({ outcome: "skipped", reason: "model not configured: base_url" }),
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it("keeps the summary on warm turns and summarizes again on a cold one past resummarize_tokens", async () => {
    model.script((_, index) => ({ text: `${SUMMARY} (${index + 1})` }));
    const { compactor } = setup({ resummarize: 1000 });
    const messages = openaiMessages();
    const first = await compactor.compact(JSON.stringify({ messages, tools: TOOLS }), COLD);
    const again = await compactor.compact(JSON.stringify({ messages, tools: TOOLS }));
    expect(again.text).toBe(first.text);
    expect(model.requests).toHaveLength(1);

    const next = [
      ...messages,
      { role: "assistant", content: null, tool_calls: [call("c6", "ls")] },
      { role: "tool", tool_call_id: "c6", content: "a.ts\nb.ts" },
      { role: "assistant", content: "Two files." },
      { role: "user", content: "Add the test." },
    ];
    const later = await compactor.compact(JSON.stringify({ messages: next, tools: TOOLS }));
    expect(model.requests).toHaveLength(1);
    const firstSummary = (JSON.parse(first.text) as { messages: Message[] }).messages[2];
    const laterMessages = (JSON.parse(later.text) as { messages: Message[] }).messages;
    expect(laterMessages.slice(0, 3)).toEqual([...messages.slice(0, 2), firstSummary]);
    expect(laterMessages.slice(3)).toEqual(next.slice(8));

    const grown = [
      ...next,
      { role: "assistant", content: null, tool_calls: [call("c7", "cat big.log")] },
      { role: "tool", tool_call_id: "c7", content: log("big").repeat(8) },
      { role: "assistant", content: "Read it." },
      { role: "user", content: "Go on." },
      { role: "assistant", content: null, tool_calls: [call("c8", "pwd")] },
      { role: "tool", tool_call_id: "c8", content: "/src" },
      { role: "assistant", content: "In /src." },
      { role: "user", content: "Continue." },
    ];
    // Warm: the summary the messages were sent with comes back, however much came after it.
    const warm = await compactor.compact(JSON.stringify({ messages: grown, tools: TOOLS }));
    expect(model.requests).toHaveLength(1);
    const warmMessages = (JSON.parse(warm.text) as { messages: Message[] }).messages;
    expect(warmMessages[2]).toEqual(firstSummary);
    // Cold: the head may be re-decided, and the grown middle is summarized again.
    const resummarized = await compactor.compact(
      JSON.stringify({ messages: grown, tools: TOOLS }),
      COLD,
    );
    expect(model.requests).toHaveLength(2);
    const grownMessages = (JSON.parse(resummarized.text) as { messages: Message[] }).messages;
    expect(grownMessages[2]?.content).toMatch(
      /^\[summary of 19 earlier messages\]\n.*\(2\)\n<<cg:/,
    );
    expect(grownMessages.slice(3)).toEqual(grown.slice(21));
  });

  it("leaves a transcript too short to cut alone", async () => {
    const { compactor } = setup({ keepLast: 10 });
    const body = JSON.stringify({ messages: openaiMessages() });
    expect((await compactor.compact(body)).text).toBe(body);
    expect(model.requests).toHaveLength(0);
  });
});

describe("summarize through POST /compact", () => {
  it.each<[string, ModelReply]>([
    ["never answers", { hang: true }],
    ["answers 500", { status: 500 }],
    ["answers garbage", { garbage: "<html>" }],
  ])("answers 200 with the original bytes when the model %s", async (_, reply) => {
    const body = JSON.stringify({ messages: openaiMessages() });
    const response = await compactWithModelReply(
      "summarize",
      { keep_last: 3 },
      createSummarize,
      reply,
      body,
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe(body);
    expect(response.modelCalls).toBeGreaterThan(0);
  });

  it("reuses the request's own model and credentials with source: incoming", async () => {
    model.reply({ text: SUMMARY });
    const config = parseConfig({
      pipeline: ["summarize"],
      upstream: { openai: { base_url: model.openaiUrl } },
      components: { summarize: { keep_last: 3, model: { source: "incoming" } } },
    });
    const app = createApp({
      config,
      store: createStore(config.store),
      registry: { summarize: createSummarize(new ModelPool()) },
    });
    const body = JSON.stringify({ model: "gpt-client", messages: openaiMessages() });
    const response = await app.request("/compact", {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        authorization: "Bearer sk-client",
        cookie: "a=b",
        "x-context-guru-cache": "cold",
      },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("[summary of 6 earlier messages]");
    const [request] = model.requests;
    expect(request?.model).toBe("gpt-client");
    expect(request?.headers.authorization).toBe("Bearer sk-client");
    expect(request?.headers.cookie).toBeUndefined();
  });
});

describe("summarize cut", () => {
  const view = (
    role: string,
    calls: string[] = [],
    results: string[] = [],
    text = "",
  ): MessageView => ({
    index: 0,
    role,
    text,
    callIds: calls,
    resultIds: results,
  });
  const numbered = (items: MessageView[]) => items.map((item, index) => ({ ...item, index }));

  it.each<[string, MessageView[], number, unknown]>([
    [
      "a naive cut on a tool result moves to its call",
      [
        view("system"),
        view("user"),
        view("assistant", ["a"]),
        view("tool", [], ["a"]),
        view("assistant", ["b"]),
        view("tool", [], ["b"]),
        view("assistant"),
      ],
      2,
      { from: 2, to: 4, role: "user" },
    ],
    [
      "parallel results stay with their call",
      [
        view("user"),
        view("assistant", ["a"]),
        view("user", [], ["a"]),
        view("assistant", ["b", "c"]),
        view("user", [], ["b"]),
        view("user", [], ["c"]),
        view("assistant"),
      ],
      2,
      { from: 1, to: 3, role: "user" },
    ],
    [
      "a plain user message after the cut gets an assistant summary",
      [
        view("user"),
        view("assistant"),
        view("user"),
        view("assistant"),
        view("user"),
        view("assistant"),
      ],
      2,
      { from: 1, to: 4, role: "assistant" },
    ],
    [
      "a call answered only in the tail keeps the cut before the call",
      [
        view("user"),
        view("assistant"),
        view("user"),
        view("assistant", ["a"]),
        view("assistant"),
        view("tool", [], ["a"]),
        view("assistant"),
      ],
      3,
      { from: 1, to: 3, role: "user" },
    ],
    [
      "an earlier summary stays in the head",
      [
        view("user"),
        view("user", [], [], "[summary] <<cg:0123456789abcdef>>"),
        view("assistant"),
        view("user"),
        view("assistant"),
        view("user"),
      ],
      1,
      { from: 2, to: 5, role: "assistant" },
    ],
    [
      "no span of two messages is left",
      [
        view("system"),
        view("user"),
        view("assistant", ["a"]),
        view("tool", [], ["a"]),
        view("assistant"),
      ],
      2,
      undefined,
    ],
    [
      "every cut would orphan a result",
      [
        view("user"),
        view("assistant", ["a"]),
        view("tool", [], ["a"]),
        view("tool", [], ["a"]),
        view("tool", [], ["a"]),
        view("user"),
      ],
      2,
      undefined,
    ],
  ])("%s", (_, messages, keepLast, expected) => {
    expect(chooseCut(numbered(messages), keepLast)).toEqual(expected);
  });
});
