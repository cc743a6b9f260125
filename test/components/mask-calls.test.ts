import { describe, expect, it } from "vitest";
import { maskCalls, sentEarlier } from "../../src/components/mask-calls.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import type { ToolOutput } from "../../src/wire/types.js";
import { fakeContext, idOf, requestChanges } from "../support/component-context.js";

/** The newest three calls kept, values under 200 tokens left alone. */
const defaults = { ...componentsSchema.parse({}).mask_calls, keep_recent: 3, min_tokens: 200 };
/** A payload well over mask_calls' 200-token floor: `lines` lines of code. */
const payload = (label: string, lines = 40) =>
  Array.from({ length: lines }, (_, at) => `    ${label}_${at} = compute(${at}, "${label}")`).join(
    "\n",
  );

/** The agent's calls as mask_calls sees them: the arguments text of each, answered or not. */
function calls(texts: readonly string[], answered = texts.map(() => true)): ToolOutput[] {
  return texts.map((text, index) => ({
    index,
    messageIndex: index * 2 + 1,
    text,
    call: { id: `call_${index}`, name: "Edit", input: undefined },
    isError: false,
    contentClass: "text",
    answered: answered[index] ?? true,
  }));
}

const edit = (file: string, label: string) =>
  JSON.stringify({
    file_path: file,
    old_string: payload(`${label}_old`),
    new_string: payload(label),
  });
const cleared = (value: string) => `${sentEarlier(value)} <<cg:${idOf(value)}>>`;

describe("mask_calls", () => {
  const texts = ["a", "b", "c", "d", "e"].map((label) => edit(`src/${label}.py`, label));

  it("clears the long values of every call but the newest three, keys and short values kept", async () => {
    const context = fakeContext(calls(texts));
    const changes = await requestChanges(maskCalls, defaults, context);
    expect(changes.map((change) => change.index)).toEqual([0, 1]);
    const first = JSON.parse(changes[0]?.text ?? "{}");
    expect(first).toEqual({
      file_path: "src/a.py",
      old_string: cleared(payload("a_old")),
      new_string: cleared(payload("a")),
    });
    // Each marker expands to the value it replaced.
    expect([...context.stashed.values()]).toEqual([
      payload("a_old"),
      payload("a"),
      payload("b_old"),
      payload("b"),
    ]);
  });

  it("keeps the bytes of everything it does not clear: key order, spacing, escapes, numbers", async () => {
    const text = `{ "file_path" : "src/\\u0061.py", "limit": 1.0e3,\n "content": ${JSON.stringify(payload("w"))} }`;
    const changes = await requestChanges(
      maskCalls,
      defaults,
      fakeContext(calls([text, "{}", "{}", "{}"])),
    );
    expect(changes).toEqual([
      {
        index: 0,
        text: `{ "file_path" : "src/\\u0061.py", "limit": 1.0e3,\n "content": ${JSON.stringify(cleared(payload("w")))} }`,
      },
    ]);
  });

  it.each<[string, string, string | undefined]>([
    ["a freeform patch is one value", payload("patch"), cleared(payload("patch"))],
    ["a short freeform input stays", "*** Begin Patch\n*** End Patch", undefined],
    [
      "an object of short values stays",
      JSON.stringify({ command: "ls -la", cwd: "/repo" }),
      undefined,
    ],
    [
      "values inside arrays are values too",
      JSON.stringify({ edits: [{ old_string: payload("x"), new_string: "y" }] }),
      JSON.stringify({ edits: [{ old_string: cleared(payload("x")), new_string: "y" }] }),
    ],
    ["a long key is a key", JSON.stringify({ [payload("key")]: "v" }), undefined],
  ])("%s", async (_, text, expected) => {
    const changes = await requestChanges(
      maskCalls,
      defaults,
      fakeContext(calls([text, "{}", "{}", "{}"])),
    );
    expect(changes).toEqual(expected === undefined ? [] : [{ index: 0, text: expected }]);
  });

  it("counts only calls whose result is in the conversation toward the newest kept", async () => {
    const answered = [true, true, true, true, false];
    const changes = await requestChanges(maskCalls, defaults, fakeContext(calls(texts, answered)));
    // Four answered calls: the newest three stay, the pending one is never touched.
    expect(changes.map((change) => change.index)).toEqual([0]);
  });

  it.each<[MarkerMode, string]>([
    ["summary", `${sentEarlier(payload("a"))} \u27eacg\u27eb`],
    ["off", sentEarlier(payload("a"))],
  ])("in %s mode writes %j", async (mode, expected) => {
    const changes = await requestChanges(
      maskCalls,
      defaults,
      fakeContext(calls([payload("a"), "{}", "{}", "{}"]), { mode }),
    );
    expect(changes).toEqual([{ index: 0, text: expected }]);
  });

  it.each([
    ["one line", "x", "[1 line sent earlier]"],
    ["a final newline is no line", "a\nb\n", "[2 lines sent earlier]"],
    ["three lines", "a\nb\nc", "[3 lines sent earlier]"],
  ])("notes %s", (_, value, note) => {
    expect(sentEarlier(value)).toBe(note);
  });

  it("leaves calls it may not change", async () => {
    const context = fakeContext(calls(texts), { fixed: new Set([0]) });
    const changes = await requestChanges(maskCalls, defaults, context);
    expect(changes.map((change) => change.index)).toEqual([1]);
  });
});
