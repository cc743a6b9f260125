import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { isRecord } from "../../src/wire/is-record.js";
import { CLEAN, COLD, postCompact, testApp } from "../support/app.js";

/**
 * mask_calls end to end (§5, §3): the agent's own applied edits cleared on a cold turn in the
 * three wire shapes, each call still a valid call of its shape, its markers expanding to the
 * payloads, the body rehydrated byte for byte, and the cleared calls given back as they were on
 * the next warm turn.
 */
const payload = (label: string) =>
  Array.from({ length: 40 }, (_, at) => `    ${label}_${at} = compute(${at}, "${label}")`).join(
    "\n",
  );
const FILES = ["src/a.py", "src/b.py", "src/c.py", "src/d.py", "src/e.py"];

function anthropicBody(count: number): string {
  const messages: unknown[] = [{ role: "user", content: "Refactor the modules." }];
  for (const [index, file] of FILES.slice(0, count).entries()) {
    const input = {
      file_path: file,
      old_string: payload(`old${index}`),
      new_string: payload(`new${index}`),
    };
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_${index}`, name: "Edit", input }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${index}`, content: "Edited." }],
    });
  }
  const tools = [{ name: "Edit", input_schema: { type: "object" } }];
  return JSON.stringify({ model: "m", max_tokens: 9, system: "You edit code.", messages, tools });
}

function openaiBody(count: number): string {
  const messages: unknown[] = [{ role: "user", content: "Refactor the modules." }];
  for (const [index, file] of FILES.slice(0, count).entries()) {
    const args = {
      file_path: file,
      old_string: payload(`old${index}`),
      new_string: payload(`new${index}`),
    };
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${index}`,
          type: "function",
          function: { name: "Edit", arguments: JSON.stringify(args) },
        },
      ],
    });
    messages.push({ role: "tool", tool_call_id: `call_${index}`, content: "Edited." });
  }
  const tools = [{ type: "function", function: { name: "Edit", parameters: { type: "object" } } }];
  return JSON.stringify({ model: "m", messages, tools });
}

/** Codex's shape: apply_patch as a freeform custom tool, its input one string (the patch). */
function responsesBody(count: number): string {
  const input: unknown[] = [
    {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "Refactor the modules." }],
    },
  ];
  for (const [index, file] of FILES.slice(0, count).entries()) {
    const patch = `*** Begin Patch\n*** Update File: ${file}\n${payload(`new${index}`)}\n*** End Patch`;
    input.push({
      type: "custom_tool_call",
      call_id: `ctc_${index}`,
      name: "apply_patch",
      input: patch,
    });
    input.push({ type: "custom_tool_call_output", call_id: `ctc_${index}`, output: "Done." });
  }
  const tools = [{ type: "custom", name: "apply_patch" }];
  return JSON.stringify({ model: "m", input, tools });
}

/** Each call's arguments as the model reads them, by shape. */
function callsOf(text: string): unknown[] {
  const body = JSON.parse(text);
  if (Array.isArray(body.input)) {
    return body.input.filter((item: { type: string }) => item.type === "custom_tool_call");
  }
  return body.messages.flatMap((message: Record<string, unknown>) => {
    if (Array.isArray(message.tool_calls)) {
      return message.tool_calls.map((call: { function: { arguments: string } }) =>
        JSON.parse(call.function.arguments),
      );
    }
    if (!Array.isArray(message.content)) return [];
    return message.content
      .filter((block) => isRecord(block) && block.type === "tool_use")
      .map((block) => (block as { input: unknown }).input);
  });
}

describe("mask_calls through POST /compact (§5)", () => {
  it.each([
    ["anthropic", anthropicBody],
    ["openai", openaiBody],
  ] as const)(
    "%s: an applied edit cleared on a cold turn, its path kept, its markers expanding to the payload",
    async (_, body) => {
      const { app } = testApp();
      const headers = { "x-context-guru-session": "edits", ...COLD };
      const text = body(5);
      const response = await postCompact(app, text, { headers });
      const out = await response.text();
      const calls = callsOf(out) as Record<string, string>[];
      // The three oldest calls are cleared (the newest two kept: keep_recent 2); each is still an
      // object with the same keys.
      expect(calls.map((call) => Object.keys(call))).toEqual(
        FILES.map(() => ["file_path", "old_string", "new_string"]),
      );
      expect(calls.map((call) => call.file_path)).toEqual(FILES);
      expect(calls[0]?.new_string).toMatch(/^\[40 lines sent earlier\] <<cg:[0-9a-f]{16}>>$/);
      expect(calls[2]?.new_string).toMatch(/^\[40 lines sent earlier\] <<cg:[0-9a-f]{16}>>$/);
      expect(calls[3]?.new_string).toBe(payload("new3"));
      const [id] = markerIds(calls[0]?.new_string ?? "");
      const expanded = await app.request(`/expand?id=${id}&session=edits`);
      expect(await expanded.text()).toBe(payload("new0"));
      const back = await app.request("/rehydrate", {
        method: "POST",
        body: out,
        headers: { "x-context-guru-session": "edits" },
      });
      expect(await back.text()).toBe(text);
      // The next warm turn gives the cleared calls back as they were sent.
      const next = await postCompact(app, body(5), {
        headers: { "x-context-guru-session": "edits" },
      });
      expect(next.headers.get("x-context-guru-cache")).toBe("warm");
      expect(callsOf(await next.text())).toEqual(calls);
    },
  );

  it("responses: Codex's freeform patch, one string, becomes the note and its marker", async () => {
    const { app } = testApp();
    const headers = { "x-context-guru-session": "patches", ...COLD };
    const text = responsesBody(5);
    const out = await (await postCompact(app, text, { headers })).text();
    const inputs = (callsOf(out) as { input: string }[]).map((call) => call.input);
    expect(inputs[0]).toMatch(/^\[43 lines sent earlier\] <<cg:[0-9a-f]{16}>>$/);
    expect(inputs[4]).toContain("*** Update File: src/e.py");
    const back = await app.request("/rehydrate", {
      method: "POST",
      body: out,
      headers: { "x-context-guru-session": "patches" },
    });
    expect(await back.text()).toBe(text);
  });

  it("clean mode clears the same values one way, with no marker", async () => {
    const { app } = testApp(CLEAN);
    const out = await (await postCompact(app, anthropicBody(5), { headers: COLD })).text();
    const calls = callsOf(out) as Record<string, string>[];
    expect(calls[0]?.old_string).toBe("[40 lines sent earlier]");
    expect(markerIds(out)).toEqual([]);
  });

  it("a warm turn of an unknown history leaves the agent's calls as they are (it reaches back)", async () => {
    const { app } = testApp();
    const text = anthropicBody(5);
    const out = await (await postCompact(app, text)).text();
    expect(callsOf(out)).toEqual(callsOf(text));
  });
});
