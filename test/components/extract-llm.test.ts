import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { isInOrderSubsequence, readSelection } from "../../src/components/extract-llm/selection.js";
import { createExtractLlm } from "../../src/components/extract-llm.js";
import { parseConfig } from "../../src/config/load.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { ModelPool } from "../../src/model/pool.js";
import type { ModelCallReport } from "../../src/pipeline/report.js";
import type { ComponentContext } from "../../src/pipeline/types.js";
import { createStore } from "../../src/store/create.js";
import { fakeContext, idOf, requestChanges, toolOutputs } from "../support/component-context.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";
import { compactWithModelReply } from "../support/model-failure.js";
import { type ModelReply, ScriptedModel } from "../support/scripted-model.js";

const model = await ScriptedModel.start();
afterAll(() => model.close());
beforeEach(() => model.reset());

const GOAL = "Why does the auth test fail?";
const LINES = Array.from({ length: 40 }, (_, index) =>
  index === 9
    ? "FAIL test/auth.test.ts > rejects an expired token"
    : `ok ${index + 1} test/module-${index + 1}.test.ts passes with all assertions green`,
);
const OUTPUT = LINES.join("\n");

function options(model: Record<string, unknown> = {}) {
  return componentsSchema.parse({
    extract_llm: {
      min_tokens: 50,
      model: { base_url: modelUrl(), model: "cheap-1", max_retries: 0, ...model },
    },
  }).extract_llm;
}
const modelUrl = () => model.openaiUrl;

function run(
  texts: readonly string[],
  settings: { mode?: MarkerMode; goal?: string; model?: Record<string, unknown> } = {},
) {
  const calls: ModelCallReport[] = [];
  const base = fakeContext(toolOutputs(texts), {
    mode: settings.mode ?? "full",
    goal: settings.goal ?? GOAL,
  });
  const context: ComponentContext & { stashed: Map<string, string> } = {
    ...base,
    reportModelCall: (call) => calls.push(call),
  };
  const component = createExtractLlm(new ModelPool({ retryBaseMs: 1 }));
  return { component, context, calls, options: options(settings.model) };
}

const kept = [
  "… (2 lines left out)",
  LINES[2],
  LINES[3],
  "… (5 lines left out)",
  LINES[9],
  "… (30 lines left out)",
].join("\n");
/** Line `index` alone, the rest of the 40 noted. */
const only = (index: number, lines: readonly string[] = LINES) =>
  [
    ...(index > 0 ? [`… (${index} ${index === 1 ? "line" : "lines"} left out)`] : []),
    lines[index],
    `… (${39 - index} lines left out)`,
  ].join("\n");

describe("extract_llm", () => {
  it.each<[MarkerMode, string]>([
    ["full", `${kept}\n<<cg:${idOf(OUTPUT)}>>`],
    ["summary", `${kept}\n\u27eacg\u27eb`],
    ["off", kept],
  ])("keeps exactly the named lines in %s mode", async (mode, expected) => {
    model.reply({ text: '{"ranges":[[3,4],[10,10]]}', usage: { input: 900, output: 12 } });
    const { component, context, calls, options } = run([OUTPUT], { mode });
    expect(await requestChanges(component, options, context)).toEqual([
      { index: 0, text: expected },
    ]);
    expect([...context.stashed.values()]).toEqual(mode === "full" ? [OUTPUT] : []);
    expect(calls).toEqual([
      expect.objectContaining({
        model: "cheap-1",
        outcome: "accepted",
        attempts: 1,
        inputTokens: 900,
        outputTokens: 12,
      }),
    ]);
    const [request] = model.requests;
    expect(request?.prompt).toContain(`Task:\n${GOAL}`);
    expect(request?.prompt).toContain("Output (40 lines):\n1| ok 1 test/module-1.test.ts");
    expect(request?.prompt).toContain("\n10| FAIL test/auth.test.ts > rejects an expired token\n");
  });

  it("tolerates a fenced answer and bare line numbers", async () => {
    model.reply({ text: 'Here you go:\n```json\n{"ranges": [3, [9, 10]]}\n```' });
    const { component, context, options } = run([OUTPUT], { mode: "off" });
    expect(await requestChanges(component, options, context)).toEqual([
      {
        index: 0,
        text: [
          "… (2 lines left out)",
          LINES[2],
          "… (5 lines left out)",
          LINES[8],
          LINES[9],
          "… (30 lines left out)",
        ].join("\n"),
      },
    ]);
  });

  it.each<[string, string, string]>([
    [
      "invents a line past the end",
      '{"ranges":[[10,10],[38,45]]}',
      "range [38,45] names lines outside 1..40",
    ],
    ["names line 0", '{"ranges":[[0,2]]}', "range [0,2] names lines outside 1..40"],
    [
      "reorders lines",
      '{"ranges":[[10,12],[3,4]]}',
      "range [3,4] overlaps or precedes an earlier range",
    ],
    [
      "repeats lines",
      '{"ranges":[[3,6],[5,8]]}',
      "range [5,8] overlaps or precedes an earlier range",
    ],
    ["reverses a range", '{"ranges":[[6,3]]}', "range [6,3] is reversed"],
    ["answers in prose", "Lines 3 to 4 matter.", "answer holds no JSON object"],
    ["answers broken JSON", '{"ranges":[[3,4]', "answer holds no JSON object"],
    ["uses another key", '{"lines":[3,4]}', "answer has no ranges array"],
    ["sends strings", '{"ranges":[["3","4"]]}', 'range ["3","4"] is not a pair of line numbers'],
    ["selects nothing", '{"ranges":[]}', "answer selects no lines"],
  ])("refuses an answer that %s and leaves the output verbatim", async (_, text, reason) => {
    model.reply({ text });
    const { component, context, calls, options } = run([OUTPUT]);
    expect(await requestChanges(component, options, context)).toEqual([]);
    expect(context.stashed.size).toBe(0);
    expect(calls).toEqual([expect.objectContaining({ outcome: "rejected", reason })]);
  });

  it.each<[string, ModelReply, Record<string, unknown>, string]>([
    ["answers 500", { status: 500 }, {}, "model answered HTTP 500 (1 attempt)"],
    ["never answers", { hang: true }, { timeout_ms: 50 }, "no model answer within 50 ms"],
    [
      "answers garbage",
      { garbage: "\u0000\u0001not json" },
      {},
      "unusable model response: body is not JSON",
    ],
  ])("leaves the output verbatim when the model %s", async (_, reply, settings, reason) => {
    // A server of its own: a request abandoned by the timeout may still land after the test.
    const own = await ScriptedModel.start();
    try {
      own.script(() => reply);
      const { component, context, calls, options } = run([OUTPUT], {
        model: { base_url: own.openaiUrl, ...settings },
      });
      expect(await requestChanges(component, options, context)).toEqual([]);
      expect(calls).toEqual([expect.objectContaining({ outcome: "failed", reason })]);
    } finally {
      await own.close();
    }
  });

  it("asks again after a failure, and only once per goal and output after an answer", async () => {
    model.reply({ status: 503 }, { text: '{"ranges":[[10,10]]}' }, { text: '{"ranges":[[1,1]]}' });
    const { component, context, options } = run([OUTPUT], { mode: "off" });
    expect(await requestChanges(component, options, context)).toEqual([]);
    expect(await requestChanges(component, options, context)).toEqual([
      { index: 0, text: only(9) },
    ]);
    expect(await requestChanges(component, options, context)).toEqual([
      { index: 0, text: only(9) },
    ]);
    expect(model.requests).toHaveLength(2);
    const other = { ...context, goal: "Which modules pass?" };
    expect(await requestChanges(component, options, other)).toEqual([{ index: 0, text: only(0) }]);
    expect(model.requests).toHaveLength(3);
  });

  it("remembers a refused answer instead of asking again", async () => {
    model.reply({ text: '{"ranges":[[50,60]]}' });
    const { component, context, options } = run([OUTPUT]);
    expect(await requestChanges(component, options, context)).toEqual([]);
    expect(await requestChanges(component, options, context)).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it.each<[string, readonly string[], { goal?: string }]>([
    ["an output under min_tokens", ["short output\nwith two lines"], {}],
    ["an output that carries a marker", [`${OUTPUT}\n<<cg:0123456789abcdef>>`], {}],
    ["a request without a goal", [OUTPUT], { goal: "" }],
  ])("does not ask about %s", async (_, texts, settings) => {
    const { component, context, options } = run(texts, settings);
    expect(await requestChanges(component, options, context)).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it("makes no change when the model keeps every line", async () => {
    model.reply({ text: '{"ranges":[[1,40]]}' });
    const { component, context, options } = run([OUTPUT]);
    expect(await requestChanges(component, options, context)).toEqual([]);
  });

  it("reports a missing model once and changes nothing", async () => {
    const { component, context, calls } = run([OUTPUT, OUTPUT]);
    const unconfigured = componentsSchema.parse({ extract_llm: { min_tokens: 50 } }).extract_llm;
    expect(await requestChanges(component, unconfigured, context)).toEqual([]);
    expect(calls).toEqual([
      {
        model: "",
        outcome: "skipped",
        reason: "model not configured: base_url",
        durationMs: 0,
        attempts: 0,
      },
    ]);
  });

  it.each([
    ["a file read", { name: "Read", input: { file_path: "/app/auth.ts" } }],
    ["a diff", { name: "Bash", input: { command: "git diff" } }],
    ["search results", { name: "Bash", input: { command: "grep -rn token test" } }],
  ])("never thins %s, and does not ask about it", async (_, call) => {
    model.reply({ text: '{"ranges":[[10,10]]}' });
    const base = fakeContext(toolOutputs([{ text: OUTPUT, call }]), { mode: "off", goal: GOAL });
    const component = createExtractLlm(new ModelPool({ retryBaseMs: 1 }));
    expect(await requestChanges(component, options(), base)).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it("asks about each large output and changes each on its own answer", async () => {
    const second = LINES.map((line) => line.replace("ok", "passed")).join("\n");
    model.script((request) =>
      request.prompt.includes("passed 1 ")
        ? { text: '{"ranges":[[2,2]]}' }
        : { text: '{"ranges":[[50,50]]}' },
    );
    const { component, context, options } = run([OUTPUT, "small", second], { mode: "off" });
    expect(await requestChanges(component, options, context)).toEqual([
      { index: 2, text: only(1, second.split("\n")) },
    ]);
    expect(model.requests).toHaveLength(2);
  });
});

describe("extract_llm through POST /compact", () => {
  const body = JSON.stringify({
    messages: [
      { role: "user", content: GOAL },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "Bash", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: OUTPUT },
    ],
    // The model can call tools, so a full marker is one it can expand (§8.1).
    tools: [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }],
  });

  it.each<[string, ModelReply]>([
    ["never answers", { hang: true }],
    ["answers 500", { status: 500 }],
    ["answers garbage", { garbage: "{" }],
    ["invents lines", { text: '{"ranges":[[10,10],[41,41]]}' }],
  ])("answers 200 with the original bytes when the model %s", async (_, reply) => {
    const response = await compactWithModelReply(
      "extract_llm",
      { min_tokens: 50 },
      createExtractLlm,
      reply,
      body,
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe(body);
    expect(response.modelCalls).toBeGreaterThan(0);
  });

  it("answers with the extracted lines and their marker when the model answers well", async () => {
    model.reply({ text: '{"ranges":[[10,10]]}' });
    const config = parseConfig({
      pipeline: ["extract_llm"],
      components: {
        extract_llm: { min_tokens: 50, model: { base_url: model.openaiUrl, model: "cheap-1" } },
      },
    });
    const app = createApp({
      config,
      store: createStore(config.store),
      registry: { extract_llm: createExtractLlm(new ModelPool()) },
      hashKey: TEST_HASH_KEY,
    });
    const response = await app.request("/compact", {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    const messages = (await response.json()) as { messages: { content: string }[] };
    expect(messages.messages[2]?.content).toBe(`${only(9)}\n<<cg:${idOf(OUTPUT)}>>`);
    expect(response.headers.get("x-context-guru-markers")).toBe("1");
  });
});

describe("extract_llm selection checks", () => {
  it.each<[string, readonly string[], boolean]>([
    ["kept lines in order", ["a", "c"], true],
    ["every line", ["a", "b", "c", "a"], true],
    ["a repeated line used twice", ["a", "a"], true],
    ["an invented line", ["a", "x"], false],
    ["reordered lines", ["c", "b"], false],
    ["one line more often than it occurs", ["b", "b"], false],
  ])("%s: %s", (_, kept, expected) => {
    expect(isInOrderSubsequence(kept, ["a", "b", "c", "a"])).toBe(expected);
  });

  it.each<[string, number, unknown]>([
    ['{"ranges":[[1,2],[4,4]]}', 5, { value: [0, 1, 3] }],
    ['{"ranges":[[1,2],[3,3]]}', 3, { value: [0, 1, 2] }],
    [
      '{"ranges":[[2,3],[3,4]]}',
      5,
      { rejected: "range [3,4] overlaps or precedes an earlier range" },
    ],
    ['{"ranges":[[1.5,2]]}', 5, { rejected: "range [1.5,2] is not a pair of line numbers" }],
    ['{"ranges":[[1,2,3]]}', 5, { rejected: "range [1,2,3] is not a pair of line numbers" }],
  ])("reads %s over %i lines", (answer, lineCount, expected) => {
    expect(readSelection(answer, lineCount)).toEqual(expected);
  });
});
