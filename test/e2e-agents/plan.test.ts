import { describe, expect, it } from "vitest";
import { readRequest, type Shape } from "../../scripts/e2e-agents/conversation.js";
import { planReply, progressOf, recogniseRequest } from "../../scripts/e2e-agents/model/plan.js";
import { MOVES } from "../../scripts/e2e-agents/model/session-script.js";

const view = (shape: Shape, body: Record<string, unknown>) =>
  readRequest(shape, JSON.stringify(body))!;
const tools = (...names: string[]) => names.map((name) => ({ name }));
const claude = (messages: unknown[], names = ["Bash", "Read", "Edit"]) =>
  view("anthropic", {
    system: [{ type: "text", text: "You are a Claude agent" }],
    tools: tools(...names),
    messages,
  });
const toolTurn = (id: string, output: string) => [
  { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: {} }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
];
const prompt = { role: "user", content: [{ type: "text", text: "fix it" }] };

describe("what the scripted model makes of a request", () => {
  it.each([
    ["a turn of the session", claude([prompt]), "turn"],
    ["a request without the agent's shell tool", claude([prompt], ["WebFetch"]), "side"],
    [
      "Claude Code's summary prompt, appended to the last user message",
      claude([
        prompt,
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t", content: "x" },
            {
              type: "text",
              text: "CRITICAL: Respond with TEXT ONLY.\n\nYour task is to create a detailed summary of the conversation so far",
            },
          ],
        },
      ]),
      "summary",
    ],
    [
      "Codex's checkpoint prompt, without tools",
      view("responses", {
        tools: [],
        input: [
          {
            type: "message",
            role: "user",
            content: [
              {
                type: "input_text",
                text: "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary",
              },
            ],
          },
        ],
      }),
      "summary",
    ],
    [
      "a trailing compaction_trigger item",
      view("responses", {
        tools: tools("exec_command"),
        input: [{ role: "user", content: "x" }, { type: "compaction_trigger" }],
      }),
      "compaction_trigger",
    ],
    [
      "a title request",
      claude(
        [
          {
            role: "user",
            content: "Generate a concise, sentence-case title (3-7 words) for: fix it",
          },
        ],
        [],
      ),
      "title",
    ],
  ])("%s", (_name, request, kind) => {
    expect(recogniseRequest(request)).toBe(kind);
  });

  it("makes the move after the latest one the conversation shows", () => {
    expect(planReply(claude([prompt]), false)).toEqual({ kind: "move", move: MOVES[0] });
    expect(planReply(claude([prompt, ...toolTurn("toolu_e2e_m05", "x")]), false)).toEqual({
      kind: "move",
      move: MOVES[5],
    });
  });

  it("finds its place again from a summary or a compaction item's content", () => {
    const summary = claude([
      { role: "user", content: "Summary: the scripted session reached [e2e-m07]" },
    ]);
    expect(progressOf(summary)).toBe(7);
    const blob = `e2ecmp.${Buffer.from("reached [e2e-m08]").toString("base64")}`;
    const compacted = view("responses", {
      tools: tools("exec_command"),
      input: [
        { role: "user", content: "fix it" },
        { type: "compaction", encrypted_content: blob },
      ],
    });
    expect(planReply(compacted, false)).toEqual({ kind: "move", move: MOVES[8] });
  });

  it("expands the newest marker once the tool is offered, and only once a session", () => {
    const marked = [
      prompt,
      ...toolTurn("toolu_e2e_m02", "head <<cg:aaaaaaaaaaaaaaaa>> tail"),
      ...toolTurn(
        "toolu_e2e_m04",
        "<<cg:cccccccccccccccc>>\n1\n… (4960 lines omitted) <<cg:bbbbbbbbbbbbbbbb>>\n5000",
      ),
    ];
    expect(planReply(claude(marked, ["Bash", "context_guru_expand"]), false)).toEqual({
      kind: "expand",
      markerId: "bbbbbbbbbbbbbbbb",
    });
    expect(planReply(claude(marked, ["Bash", "context_guru_expand"]), true)).toEqual({
      kind: "move",
      move: MOVES[4],
    });
    expect(planReply(claude(marked, ["Bash"]), false)).toEqual({ kind: "move", move: MOVES[4] });
  });

  it("says so when the script is done", () => {
    const done = claude([
      prompt,
      { role: "assistant", content: "E2E-FORK-DONE [e2e-m12]" },
      prompt,
    ]);
    expect(planReply(done, false)).toEqual({ kind: "done", latest: 12 });
  });
});
