import { describe, expect, it } from "vitest";
import type { ServedUsage } from "../../src/cache/usage.js";
import { tapUsage } from "../../src/cache/usage-tap.js";
import { injectExpandTool } from "../../src/expand/inject.js";
import { parseJsonResponse } from "../../src/expand/parse-json.js";
import { declaredToolName, EXPAND_TOOL_NAME } from "../../src/expand/tool.js";
import { classifyCalls } from "../../src/expand/turn.js";
import { removeExpandTool } from "../../src/expand/uninject.js";
import { sessionKey } from "../../src/session/key.js";
import { applyEdits } from "../../src/wire/edit.js";
import { isRecord } from "../../src/wire/is-record.js";
import { scanBody, scanTopLevel } from "../../src/wire/json-scan.js";
import { parseProviderChoice } from "../../src/wire/provider-choice.js";
import { detectShape, SHAPES, wireShape } from "../../src/wire/registry.js";
import { elementText, replaceMessagesEdit } from "../../src/wire/replace-messages.js";
import type { WireShape } from "../../src/wire/shape.js";
import { readTranscript, type Transcript } from "../../src/wire/transcript.js";
import type { Provider } from "../../src/wire/types.js";
import { servedReply } from "../support/cache-usage.js";
import { expandCall } from "../support/model-replies.js";
import {
  anthropicConversation,
  coldSessions,
  MASKED_ID,
  openaiConversation,
  responsesConversation,
  sharedHarness,
  toolOutput,
} from "../support/proxy-harness.js";
import { sseText } from "../support/scripted-upstream.js";
import { readStream } from "../support/stream-read.js";

/**
 * Every registered wire shape meets the same contract: a shape added to the registry is tested
 * here once it has a sample request below (the table's type asks for one).
 *
 * Each sample is one conversation: the system text `You are a coding agent.`, the user's
 * `Find the bug in the modules.`, four `bash` calls (`cat m0.py` … `cat m3.py`) answered by
 * toolOutput(0..3), and a declared `bash` tool.
 */
const SAMPLES: Readonly<Record<Provider, () => unknown>> = {
  openai: openaiConversation,
  anthropic: anthropicConversation,
  responses: responsesConversation,
};

const SYSTEM = "You are a coding agent.";
const GOAL = "Find the bug in the modules.";
const OUTPUTS = [0, 1, 2, 3].map(toolOutput);
const SERVED = { cached: 700, prompt: 1000 };
const SERVED_USAGE: ServedUsage = { cachedTokens: 700, inputTokens: 1000 };

function record(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  if (!isRecord(value)) throw new Error("not an object");
  return value;
}

/** A body of `shape` as its shape reads it. */
function read(shape: WireShape, text: string): { items: unknown[]; transcript: Transcript } {
  const items = record(text)[shape.scan.conversation];
  const scan = scanBody(text, shape.scan);
  if (!Array.isArray(items) || !scan) throw new Error(`no ${shape.scan.conversation} array`);
  expect(scan.messages).toHaveLength(items.length);
  return { items, transcript: readTranscript(shape, items, scan) };
}

describe("the registry", () => {
  it("names each shape, and each proxy route and usage format, once", () => {
    for (const key of ["name", "proxyRoute"] as const) {
      expect(new Set(SHAPES.map((shape) => shape[key])).size).toBe(SHAPES.length);
    }
    expect(new Set(SHAPES.map((shape) => shape.usage.format)).size).toBe(SHAPES.length);
  });

  it("reads a body no shape claims as its last shape, OpenAI chat", () => {
    expect(SHAPES.at(-1)?.name).toBe("openai");
    for (const body of [{}, { messages: "text" }, { input: "text" }]) {
      expect(detectShape(body).name).toBe("openai");
    }
  });

  it("refuses a name it does not hold", () => {
    expect(parseProviderChoice("gemini")).toBeUndefined();
    expect(() => wireShape("gemini" as Provider)).toThrow(RangeError);
  });
});

const CASES = SHAPES.map((shape) => [shape.name, shape] as const);

describe.each(CASES)("the %s shape", (name, shape) => {
  const text = JSON.stringify(SAMPLES[name]());

  it("is found by its name and by sniffing its sample", () => {
    expect(wireShape(name)).toBe(shape);
    expect(parseProviderChoice(name)).toBe(name);
    expect(detectShape(record(text))).toBe(shape);
  });

  it("reads the outputs, their calls, the goal and the session texts", () => {
    const { transcript } = read(shape, text);
    expect(transcript.provider).toBe(name);
    expect(transcript.outputs.map((output) => output.text)).toEqual(OUTPUTS);
    expect(transcript.outputs.map((output) => [output.call?.name, output.call?.input])).toEqual(
      [0, 1, 2, 3].map((index) => ["bash", { command: `cat m${index}.py` }]),
    );
    expect(transcript.goal).toBe(GOAL);
    expect(shape.sessionTexts(record(text))).toEqual({ system: SYSTEM, user: GOAL });
    // The same conversation gets the same derived session key whatever its shape.
    expect(sessionKey(record(text))).toBe(sessionKey(openaiConversation()));
  });

  it("writes a changed output back into its own string and nowhere else", () => {
    const { transcript } = read(shape, text);
    const span = transcript.outputs[1]?.span;
    if (!span) throw new Error("no second output");
    const changed = applyEdits(text, [{ span, raw: JSON.stringify("[changed]") }]);
    const after = read(shape, changed).transcript;
    expect(after.outputs.map((output) => output.text)).toEqual([
      OUTPUTS[0],
      "[changed]",
      OUTPUTS[2],
      OUTPUTS[3],
    ]);
    const others = (strings: Transcript["strings"]) =>
      strings.filter((item) => item.text !== OUTPUTS[1] && item.text !== "[changed]");
    expect(others(after.strings).map((item) => item.text)).toEqual(
      others(transcript.strings).map((item) => item.text),
    );
  });

  it("renders each output's message with its text, and the call's message with its id", () => {
    const { items, transcript } = read(shape, text);
    const views = items.map((item, index) => shape.view(item, index));
    for (const output of transcript.outputs) {
      const id = output.call?.id ?? "";
      expect(views[output.messageIndex]?.text).toContain(output.text);
      expect(views[output.messageIndex]?.resultIds).toContain(id);
      expect(views.some((view) => view.callIds.includes(id))).toBe(true);
    }
  });

  it.each([
    ["with its own tools", text],
    ["without tools", JSON.stringify({ ...record(text), tools: undefined })],
  ])("places the expand tool last in tools and takes it back byte for byte, %s", (_, body) => {
    const scan = scanTopLevel(body);
    if (!scan) throw new Error("not an object");
    const injected = injectExpandTool(body, shape, scan.members, scan.close);
    const tools = record(injected).tools;
    expect(Array.isArray(tools) && tools.at(-1)).toEqual(JSON.parse(shape.expandTool));
    expect(Array.isArray(tools) && declaredToolName(tools.at(-1))).toBe(EXPAND_TOOL_NAME);
    expect(detectShape(record(injected))).toBe(shape);
    expect(removeExpandTool(injected, shape)).toBe(body);
  });

  it("finds the expand call in a streamed answer and reads the stream's usage", async () => {
    const reply = servedReply(name, true, SERVED, [expandCall("abc")]);
    const stream = readStream(name, reply.sse ?? []);
    expect(stream.opening).toBe("expand");
    expect(stream.turn && classifyCalls(stream.turn)).toEqual({
      expand: [{ callId: "call_abc", id: "abc" }],
      others: 0,
    });
    expect(readStream(name, servedReply(name, true, SERVED).sse ?? []).opening).toBe("through");
    const served: (ServedUsage | undefined)[] = [];
    const body = new Response((reply.sse ?? []).map(sseText).join("")).body;
    await new Response(tapUsage(body, shape.usage, (usage) => served.push(usage))).text();
    expect(served).toEqual([SERVED_USAGE]);
  });

  it("finds the expand call in a JSON answer and continues with the original as its result", () => {
    const reply = servedReply(name, false, SERVED, [expandCall("abc")]);
    // Scripted JSON answers are a value, or a text when their bytes matter.
    const answer = reply.body ?? JSON.stringify(reply.json);
    const json = record(answer);
    const turn = parseJsonResponse(shape, json, answer);
    if (!turn) throw new Error("no turn");
    expect(classifyCalls(turn).expand).toEqual([{ callId: "call_abc", id: "abc" }]);
    expect(shape.usage.served(json.usage)).toEqual(SERVED_USAGE);

    const next = shape.continuation(text, turn, [{ callId: "call_abc", content: "the original" }]);
    if (next === undefined) throw new Error("no continuation");
    const conversation = scanBody(text, shape.scan)?.messages.at(-1);
    expect(next.startsWith(text.slice(0, conversation?.end))).toBe(true);
    const outputs = read(shape, next).transcript.outputs;
    expect(outputs.map((output) => output.text)).toEqual([...OUTPUTS, "the original"]);
    expect(outputs.at(-1)?.call?.name).toBe(EXPAND_TOOL_NAME);
  });

  // A shape without a summary message never has its messages replaced (summaries unavailable).
  it.runIf(shape.summaryMessage !== undefined)(
    "writes a summary as one message of its shape",
    () => {
      const written = shape.summaryMessage?.("user", "a summary") ?? "";
      const scan = scanBody(text, shape.scan);
      const edit = scan && replaceMessagesEdit(scan, 1, 3, written);
      if (!edit) throw new Error("no messages to replace");
      const { items, transcript } = read(shape, applyEdits(text, [edit]));
      expect(items).toHaveLength((scan?.messages.length ?? 0) - 1);
      expect(elementText(items[1])).toBe("a summary");
      expect(transcript.strings.find((item) => item.messageIndex === 1)?.text).toBe("a summary");
    },
  );

  const harness = sharedHarness();
  const session = coldSessions(`conformance-${name}`);

  it("through its proxy route, answers the model's expand call with the original", async () => {
    const { upstream, port } = harness.current;
    const answer = servedReply(name, true, SERVED);
    upstream.reply(servedReply(name, true, SERVED, [expandCall(MASKED_ID)]), answer);
    const response = await fetch(`http://127.0.0.1:${port}${shape.proxyRoute}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...session().headers },
      body: text,
    });
    // The client gets the answer after the expand round, as the upstream streamed it.
    expect(await response.text()).toBe((answer.sse ?? []).map(sseText).join(""));
    expect(response.headers.get("x-context-guru-expand-rounds")).toBe("1");
    const [first, second] = upstream.requests;
    expect(upstream.requests.map((request) => request.url.endsWith(shape.upstream.path))).toEqual([
      true,
      true,
    ]);
    expect(first?.body).toContain(`<<cg:${MASKED_ID}>>`);
    const tools = isRecord(first?.json) ? first.json.tools : undefined;
    expect(Array.isArray(tools) && tools.at(-1)).toEqual(JSON.parse(shape.expandTool));
    const outputs = read(shape, second?.body ?? "{}").transcript.outputs;
    expect(outputs.at(-1)?.text).toBe(toolOutput(0));
    expect(outputs.at(-1)?.call?.name).toBe(EXPAND_TOOL_NAME);
  });
});
