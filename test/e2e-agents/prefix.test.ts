import { describe, expect, it } from "vitest";
import { comparePrefix, grownBy, type SentPair } from "../../scripts/e2e-agents/checks/prefix.js";
import { readRequest } from "../../scripts/e2e-agents/conversation.js";

/** A request in Anthropic's shape, its messages written exactly as given. */
function request(
  messages: readonly string[],
  tools = '[{"name":"Bash"}]',
): ReturnType<typeof readRequest> & object {
  return readRequest("anthropic", `{"tools":${tools},"messages":[${messages.join(",")}]}`)!;
}
const pair = (
  client: readonly string[],
  forwarded: readonly string[] = client,
  tools?: string,
): SentPair => ({
  client: request(client),
  forwarded: request(forwarded, tools),
});

const user = '{"role":"user","content":[{"type":"text","text":"fix it"}]}';
const call =
  '{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}';
const output = (text: string, breakpoint = false) =>
  `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"${text}"${breakpoint ? ',"cache_control":{"type":"ephemeral"}' : ""}}]}`;
const next = '{"role":"assistant","content":[{"type":"text","text":"done"}]}';

describe("already-sent messages between two turns", () => {
  it("counts a turn that forwards what it forwarded before as identical", () => {
    const before = pair([user, call, output("big")], [user, call, output("small")]);
    const after = pair([user, call, output("big"), next], [user, call, output("small"), next]);
    expect(comparePrefix(before, after)).toEqual({
      common: 3,
      identical: 3,
      cacheControlMoves: 0,
      serviceChanges: [],
      headChanged: false,
      clientDiverged: undefined,
    });
  });

  it("tells the client's move of its cache_control breakpoint apart from a change of the service", () => {
    const before = pair([user, call, output("big", true)], [user, call, output("small", true)]);
    const moved = pair([user, call, output("big"), next], [user, call, output("small"), next]);
    expect(comparePrefix(before, moved)).toMatchObject({
      common: 3,
      identical: 2,
      cacheControlMoves: 1,
      serviceChanges: [],
    });
    const rewritten = pair([user, call, output("big"), next], [user, call, output("other"), next]);
    expect(comparePrefix(before, rewritten)).toMatchObject({
      cacheControlMoves: 0,
      serviceChanges: [2],
    });
  });

  it("reports a message the service changed although the client sent it the same", () => {
    const before = pair([user, call, output("big")], [user, call, output("big")]);
    const after = pair(
      [user, call, output("big"), next],
      [user, call, output("<<cg:0123456789abcdef>>"), next],
    );
    expect(comparePrefix(before, after)).toMatchObject({ identical: 2, serviceChanges: [2] });
  });

  it("reports tools changed by the service while the client's stayed the same", () => {
    const before = pair([user]);
    const after = pair(
      [user, call],
      [user, call],
      '[{"name":"Bash"},{"name":"context_guru_expand"}]',
    );
    expect(comparePrefix(before, after).headChanged).toBe(true);
  });

  it("stops at the first message the client itself changed, and says where it diverged", () => {
    const before = pair([user, call, output("big")]);
    const after = pair([user, next]);
    expect(comparePrefix(before, after)).toMatchObject({ common: 1, clientDiverged: 1 });
  });

  it("checks the earlier blocks of a message the client grew (Claude Code's summary prompt)", () => {
    const prompt =
      '{"type":"text","text":"Your task is to create a detailed summary of the conversation so far"}';
    const grown = (text: string) =>
      `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"${text}"},${prompt}]}`;
    expect(grownBy(output("big", true), grown("big"))).toBe(1);
    const before = pair([user, call, output("big")], [user, call, output("small")]);
    const kept = comparePrefix(
      before,
      pair([user, call, grown("big")], [user, call, grown("small")]),
    );
    expect(kept).toMatchObject({ common: 2, serviceChanges: [], clientDiverged: undefined });
    const resent = comparePrefix(
      before,
      pair([user, call, grown("big")], [user, call, grown("big")]),
    );
    expect(resent.serviceChanges).toEqual([2]);
  });
});
