import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { CLEAN, postCompact, testApp } from "../support/app.js";
import { agentBodies, hasSharedCorpus, REDUCED_PAST_TURNS } from "../support/shared-corpus.js";

const messagesOf = (text: string) =>
  JSON.stringify((JSON.parse(text) as { messages: unknown }).messages);
const bodies = hasSharedCorpus ? agentBodies() : [];

/**
 * The keys of every tool call's arguments, in order (OpenAI `arguments` decoded, Anthropic
 * `input`): a compacted call must still be a valid call of its shape with the same keys (§3).
 */
function callKeys(text: string): string[][] {
  const { messages } = JSON.parse(text) as { messages: Record<string, unknown>[] };
  return messages.flatMap((message) => {
    if (Array.isArray(message.tool_calls)) {
      return message.tool_calls.map((call: { function: { arguments: string } }) =>
        Object.keys(JSON.parse(call.function.arguments) as object),
      );
    }
    if (!Array.isArray(message.content)) return [];
    return message.content
      .filter((block: { type?: string }) => block.type === "tool_use")
      .map((block: { input: object }) => Object.keys(block.input));
  });
}

describe.skipIf(!hasSharedCorpus)("agent corpus, reversible mode (agent preset)", () => {
  const { app } = testApp();

  it.each(bodies.map((entry) => [entry.file, entry] as const))(
    "%s: markers resolve, rehydrate restores",
    async (_, entry) => {
      const session = `corpus-${entry.session}-${entry.provider}`;
      const response = await postCompact(app, entry.body, {
        // A one-off body decided whole: its head may be re-decided (§4a).
        headers: { "x-context-guru-session": session, "x-context-guru-cache": "cold" },
      });
      const out = await response.text();
      const foreign = new Set(markerIds(entry.body));
      const carried = [...new Set(markerIds(messagesOf(out)))];
      const ids = carried.filter((id) => !foreign.has(id));
      expect(Number(response.headers.get("x-context-guru-markers"))).toBe(ids.length);
      if (entry.turns > REDUCED_PAST_TURNS) expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        const own = await app.request(`/expand?id=${id}&session=${session}`);
        expect(own.status).toBe(200);
        expect((await own.text()).length).toBeGreaterThan(0);
        const other = await app.request(`/expand?id=${id}`, {
          headers: { "x-context-guru-session": "someone-else" },
        });
        expect(other.status).toBe(404);
      }
      const rehydrated = await app.request("/rehydrate", {
        method: "POST",
        body: out,
        headers: { "x-context-guru-session": session },
      });
      if (foreign.size === 0) expect(rehydrated.headers.get("x-context-guru-unresolved")).toBe("0");
      expect(await rehydrated.text()).toBe(entry.body);
      expect(callKeys(out)).toEqual(callKeys(entry.body));

      const tools =
        (JSON.parse(out) as { tools?: Array<{ name?: string; function?: { name: string } }> })
          .tools ?? [];
      const names = tools.map((tool) => tool.name ?? tool.function?.name);
      // A body that carries a marker is offered the expand tool, once and last; a cold request
      // decides the tools, so one whose outputs are all still needed may be offered it too.
      const offered = names.filter((name) => name === "context_guru_expand").length;
      if (carried.length > 0) expect(offered).toBe(1);
      expect(offered).toBeLessThanOrEqual(1);
      if (offered > 0) expect(names.at(-1)).toBe("context_guru_expand");
    },
  );
});

describe.skipIf(!hasSharedCorpus)("agent corpus, clean mode", () => {
  const { app } = testApp(CLEAN);
  it.each(bodies.map((entry) => [entry.file, entry] as const))(
    "%s: no marker, no sentinel, no tool",
    async (_, entry) => {
      const cold = { headers: { "x-context-guru-cache": "cold" } };
      const out = await (await postCompact(app, entry.body, cold)).text();
      expect(markerIds(out)).toEqual(markerIds(entry.body));
      expect(out).not.toContain("\u27eacg\u27eb");
      expect(out.includes('"name":"context_guru_expand"')).toBe(false);
      if (entry.turns > REDUCED_PAST_TURNS) expect(out.length).toBeLessThan(entry.body.length);
    },
  );
});
