import { describe, expect, it } from "vitest";
import { requestMarkerIds } from "../../src/expand/request-markers.js";
import { removeExpandTool } from "../../src/expand/uninject.js";
import { sessionKey } from "../../src/session/key.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { parseProviderChoice } from "../../src/wire/provider-choice.js";
import { detectShape } from "../../src/wire/registry.js";
import { openaiResponses } from "../../src/wire/shapes/responses/index.js";
import { readTranscript } from "../../src/wire/transcript.js";

/** A Codex-like Responses body: reasoning, calls of both kinds, outputs of both spellings. */
const BODY = `{"model":"gpt-5","instructions":"You are Codex.","input":[
 {"type":"message","role":"user","content":[{"type":"input_text","text":"fix the bug"}]},
 {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"gAAAA\\u003d"},
 {"type":"function_call","id":"fc_1","call_id":"call_1","name":"shell","arguments":"{\\"command\\":[\\"bash\\",\\"-lc\\",\\"ls\\"]}"},
 {"type":"function_call_output","call_id":"call_1","output":"a.txt\\nb.txt"},
 {"type":"custom_tool_call","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch"},
 {"type":"custom_tool_call_output","call_id":"call_2","output":[{"type":"input_text","text":"Done!"},{"type":"input_image","image_url":"x"}]},
 {"type":"compaction","encrypted_content":"opaque","output":"not a tool output"},
 {"role":"assistant","content":"all good"},
 {"type":"future_item","output":"unknown"}
],"tools":[],"store":false,"include":["reasoning.encrypted_content"]}`;

describe("detection", () => {
  it.each([
    [{ input: [] }, "responses"],
    [{ input: [{ type: "message", role: "user", content: "hi" }], model: "m" }, "responses"],
    [{ input: "a string input" }, "openai"],
    [{ input: [], messages: [] }, "openai"],
    [{ input: [], system: "s" }, "responses"],
    [{ messages: [{ role: "user", content: "hi" }] }, "openai"],
    [{ system: "s", messages: [] }, "anthropic"],
  ] as const)("%j is %s", (body, provider) => {
    expect(detectShape(body).name).toBe(provider);
  });

  it.each([
    ["responses", "responses"],
    ["auto", "auto"],
    ["", "auto"],
    ["chat", undefined],
  ] as const)("the provider query %j is %s", (value, choice) => {
    expect(parseProviderChoice(value)).toBe(choice);
  });
});

describe("scan of input items", () => {
  const scan = scanBody(BODY, openaiResponses.scan);

  it("records every item's span, the output strings and the calls' arguments under input", () => {
    expect(scan?.messages).toHaveLength(9);
    expect([...(scan?.strings.keys() ?? [])]).toEqual([
      "0/content/0/text",
      "2/arguments",
      "3/output",
      "4/input",
      "5/output/0/text",
      "6/output",
      "7/content",
      "8/output",
    ]);
    const span = scan?.strings.get("5/output/0/text");
    expect(span && BODY.slice(span.start, span.end)).toBe('"Done!"');
  });

  it("does not treat `output` as content in chat messages", () => {
    const chat = `{"messages":[{"role":"tool","output":"x","content":"y"}]}`;
    expect([...(scanBody(chat)?.strings.keys() ?? [])]).toEqual(["0/content"]);
  });

  it("calls a repeated output key ambiguous", () => {
    const twice = `{"input":[{"type":"function_call_output","output":"a","output":"b"}]}`;
    expect(scanBody(twice, openaiResponses.scan)?.ambiguous).toBe(true);
  });
});

describe("transcript of a Responses body", () => {
  const body = JSON.parse(BODY) as { input: unknown[] };
  const scan = scanBody(BODY, openaiResponses.scan);
  if (!scan) throw new Error("no scan");
  const transcript = readTranscript(openaiResponses, body.input, scan);

  it("reads function and custom tool outputs paired with their calls by call_id", () => {
    expect(
      transcript.outputs.map(({ messageIndex, text, call }) => ({ messageIndex, text, call })),
    ).toEqual([
      {
        messageIndex: 3,
        text: "a.txt\nb.txt",
        call: { id: "call_1", name: "shell", input: { command: ["bash", "-lc", "ls"] } },
      },
      {
        messageIndex: 5,
        text: "Done!",
        call: { id: "call_2", name: "apply_patch", input: "*** Begin Patch" },
      },
    ]);
  });

  it("counts message text, never reasoning, compaction or unknown items", () => {
    expect(transcript.strings.map((item) => item.text)).toEqual([
      "fix the bug",
      "a.txt\nb.txt",
      "Done!",
      "all good",
    ]);
    expect(transcript.goal).toBe("fix the bug");
    expect(transcript.messageCount).toBe(9);
  });
});

describe("session key of a Responses body", () => {
  it("derives from instructions and the first user input, as a chat body from system and user", () => {
    const chat = {
      messages: [
        { role: "system", content: "You are Codex." },
        { role: "user", content: "fix the bug" },
      ],
    };
    expect(sessionKey(JSON.parse(BODY))).toBe(sessionKey(chat));
  });

  it("stays the same as items are appended", () => {
    const later = JSON.parse(BODY) as { input: unknown[] };
    later.input.push({ type: "message", role: "user", content: "and now the tests" });
    expect(sessionKey(later)).toBe(sessionKey(JSON.parse(BODY)));
  });

  it("differs by instructions", () => {
    const other = { ...(JSON.parse(BODY) as object), instructions: "Another agent." };
    expect(sessionKey(other)).not.toBe(sessionKey(JSON.parse(BODY)));
  });
});

describe("expand tool and markers in Responses bodies", () => {
  it("is the flat function tool", () => {
    expect(JSON.parse(openaiResponses.expandTool)).toEqual({
      type: "function",
      name: "context_guru_expand",
      description: expect.stringContaining("<<cg:HASH>>") as unknown,
      parameters: {
        type: "object",
        properties: { id: { type: "string", description: "The HASH from a <<cg:HASH>> marker" } },
        required: ["id"],
      },
    });
  });

  it("is removed where it was appended", () => {
    const added = `{"input":[],"tools":[{"type":"function","name":"x"},${openaiResponses.expandTool}]}`;
    expect(removeExpandTool(added, openaiResponses)).toBe(
      `{"input":[],"tools":[{"type":"function","name":"x"}]}`,
    );
  });

  it("finds markers in instructions and input, not in tools", () => {
    const text = `{"instructions":"<<cg:aaaaaaaaaaaa>>","input":[{"type":"function_call_output","output":"<<cg:bbbbbbbbbbbb>>"}],"tools":[{"description":"<<cg:cccccccccccc>>"}]}`;
    const members = scanBody(text, undefined)?.members ?? new Map();
    expect([...requestMarkerIds(text, members)]).toEqual(["aaaaaaaaaaaa", "bbbbbbbbbbbb"]);
  });
});
