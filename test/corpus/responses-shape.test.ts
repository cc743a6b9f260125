import { describe, expect, it } from "vitest";
import { responsesForm } from "../../bench/responses-shape.js";
import { replayTurns } from "../../bench/turns.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { markerIds } from "../../src/expand/markers.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { openaiResponses } from "../../src/wire/shapes/responses/index.js";
import { CLEAN, COLD, postCompact, testApp } from "../support/app.js";
import { agentBodies, hasSharedCorpus, REDUCED_PAST_TURNS } from "../support/shared-corpus.js";

/** The chat-shaped corpus bodies, each with its Responses form built here (no copies stored). */
const bodies = (hasSharedCorpus ? agentBodies() : [])
  .filter((entry) => entry.provider === "openai")
  .map((entry) => ({ ...entry, responses: responsesForm(entry.body) }));

/** No deadline of the loaded test machine decides what these bodies get. */
const NO_DEADLINE: ConfigInput = { limits: { compact_timeout_ms: 600_000 } };

/** The raw text of each `input` item. */
const itemTexts = (text: string) =>
  (scanBody(text, openaiResponses.scan)?.messages ?? []).map((span) =>
    text.slice(span.start, span.end),
  );

/** Saved tokens (before − after) of one compaction, from the response headers. */
async function saved(app: ReturnType<typeof testApp>["app"], body: string, session: string) {
  const response = await postCompact(app, body, {
    headers: { ...COLD, "x-context-guru-session": session },
  });
  const text = await response.text();
  const before = Number(response.headers.get("x-context-guru-tokens-before"));
  const after = Number(response.headers.get("x-context-guru-tokens-after"));
  return { text, before, after, saved: before - after };
}

describe.skipIf(!hasSharedCorpus)("Responses form of the agent corpus", () => {
  it.each([
    ["reversible", NO_DEADLINE],
    ["clean", { ...CLEAN, ...NO_DEADLINE }],
  ] as const)("%s mode saves what the chat form saves", async (_, config) => {
    const { app } = testApp(config);
    let chatSaved = 0;
    let responsesSaved = 0;
    for (const entry of bodies) {
      const chat = await saved(app, entry.body, `chat-${entry.file}`);
      const responses = await saved(app, entry.responses, `responses-${entry.file}`);
      expect(responses.saved, entry.file).toBe(chat.saved);
      // The chat form counts its system message; the Responses form's instructions are no item.
      if (entry.turns > REDUCED_PAST_TURNS) expect(responses.saved, entry.file).toBeGreaterThan(0);
      chatSaved += chat.saved;
      responsesSaved += responses.saved;
    }
    console.info(`${_}: saved ${chatSaved} tokens as chat, ${responsesSaved} as Responses`);
    expect(responsesSaved).toBe(chatSaved);
  });

  it.each(bodies.map((entry) => [entry.file, entry] as const))(
    "%s: reversible markers resolve and /rehydrate is byte-exact",
    async (_, entry) => {
      const { app } = testApp(NO_DEADLINE);
      const session = `responses-${entry.file}`;
      const response = await postCompact(app, entry.responses, {
        headers: { ...COLD, "x-context-guru-session": session },
      });
      const out = await response.text();
      const foreign = new Set(markerIds(entry.responses));
      const input = JSON.stringify((JSON.parse(out) as { input: unknown }).input);
      const ids = [...new Set(markerIds(input))].filter((id) => !foreign.has(id));
      expect(Number(response.headers.get("x-context-guru-markers"))).toBe(ids.length);
      if (entry.turns > REDUCED_PAST_TURNS) expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) {
        const own = await app.request(`/expand?id=${id}&session=${session}`);
        expect(own.status).toBe(200);
      }
      const sent = JSON.parse(entry.responses) as { input: unknown[]; tools: unknown[] };
      const got = JSON.parse(out) as { input: unknown[]; tools: Array<Record<string, unknown>> };
      expect(got.input).toHaveLength(sent.input.length);
      if (ids.length > 0) {
        expect(got.tools).toHaveLength(sent.tools.length + 1);
        expect(got.tools.at(-1)).toMatchObject({ type: "function", name: "context_guru_expand" });
      }
      const rehydrated = await app.request("/rehydrate", {
        method: "POST",
        body: out,
        headers: { "x-context-guru-session": session },
      });
      if (foreign.size === 0) expect(rehydrated.headers.get("x-context-guru-unresolved")).toBe("0");
      expect(await rehydrated.text()).toBe(entry.responses);
    },
  );

  it.each(bodies.filter((entry) => entry.turns > 3).map((entry) => [entry.file, entry] as const))(
    "%s: a warm turn-by-turn replay gives every earlier item back byte for byte, saving what chat saves",
    async (_, entry) => {
      // Frozen as sent: no priced break (cache.pricing prefill-only), so every turn is warm.
      const { app } = testApp({ ...NO_DEADLINE, cache: { pricing: "prefill-only" } });
      const chatTurns = replayTurns("openai", entry.body);
      const turns = replayTurns("responses", entry.responses);
      expect(turns).toHaveLength(chatTurns.length);
      let previous: string[] = [];
      for (const [index, turn] of turns.entries()) {
        const response = await postCompact(app, turn, {
          headers: { "x-context-guru-session": `replay-${entry.file}` },
        });
        const items = itemTexts(await response.text());
        if (index > 0) expect(response.headers.get("x-context-guru-cache")).toBe("warm");
        expect(items.slice(0, previous.length)).toEqual(previous);
        previous = items;
        const chat = await postCompact(app, chatTurns[index] as string, {
          headers: { "x-context-guru-session": `replay-chat-${entry.file}` },
        });
        await chat.text();
        const saving = (headers: Headers) =>
          Number(headers.get("x-context-guru-tokens-before")) -
          Number(headers.get("x-context-guru-tokens-after"));
        expect(saving(response.headers)).toBe(saving(chat.headers));
      }
    },
  );
});

describe.skipIf(!hasSharedCorpus)("items the pipeline never changes", () => {
  const REASONING = `{"type":"reasoning","id":"rs_0","summary":[],"encrypted_content":"gAAAAB\\u002bx/=="}`;
  const COMPACTION = `{ "type" : "compaction", "encrypted_content" : "zz", "output" : "kept" }`;
  const UNKNOWN = `{"type":"web_search_call","id":"ws_1","status":"completed","output":"not ours"}`;

  /** The Responses form with a reasoning item before every call, and foreign items spliced in. */
  function enriched(responses: string): string {
    const items = itemTexts(responses).flatMap((raw) =>
      raw.startsWith('{"type":"function_call",') ? [REASONING, raw] : [raw],
    );
    items.splice(1, 0, COMPACTION, UNKNOWN);
    const span = scanBody(responses, openaiResponses.scan)?.members.get("input");
    if (!span) throw new Error("no input");
    const head = `{"store":false,"previous_response_id":null,"include":["reasoning.encrypted_content"],"n":1.0,`;
    return `${head}${responses.slice(1, span.start)}[${items.join(",")}]${responses.slice(span.end)}`;
  }

  const largest = bodies.reduce<(typeof bodies)[number] | undefined>(
    (best, entry) => (best === undefined || entry.turns > best.turns ? entry : best),
    undefined,
  );

  it.each([
    ["reversible", NO_DEADLINE],
    ["clean", { ...CLEAN, ...NO_DEADLINE }],
  ] as const)(
    "%s: only output strings and call arguments change; no item added, dropped or reordered",
    async (_, config) => {
      if (!largest) return;
      const body = enriched(largest.responses);
      const { app } = testApp(config);
      const out = await (await postCompact(app, body, { headers: COLD })).text();
      const before = itemTexts(body);
      const after = itemTexts(out);
      expect(after).toHaveLength(before.length);
      let changed = 0;
      for (const [index, raw] of before.entries()) {
        const item = JSON.parse(raw) as Record<string, unknown>;
        const returned = JSON.parse(after[index] as string) as Record<string, unknown>;
        if (item.type === "function_call_output" && after[index] !== raw) {
          changed++;
          expect({ ...returned, output: item.output }).toEqual(item);
        } else if (item.type === "function_call" && after[index] !== raw) {
          // mask_calls clears long argument values: the call keeps its keys and stays a call.
          changed++;
          expect({ ...returned, arguments: item.arguments }).toEqual(item);
          const keys = (args: unknown) => Object.keys(JSON.parse(args as string) as object);
          expect(keys(returned.arguments)).toEqual(keys(item.arguments));
        } else {
          expect(after[index]).toBe(raw);
        }
      }
      expect(changed).toBeGreaterThan(0);
      expect(after.filter((raw) => raw === REASONING)).toHaveLength(
        before.filter((raw) => raw === REASONING).length,
      );
      // Every member but input (and tools, where the expand tool goes) keeps its bytes.
      const members = (text: string) => scanBody(text, openaiResponses.scan)?.members ?? new Map();
      const sent = members(body);
      const got = members(out);
      expect([...got.keys()]).toEqual([...sent.keys()]);
      for (const [key, span] of sent) {
        if (key === "input" || key === "tools") continue;
        const other = got.get(key);
        expect(out.slice(other?.start, other?.end)).toBe(body.slice(span.start, span.end));
      }
    },
  );

  it("summaries never run on Responses bodies: every item goes on", async () => {
    if (!largest) return;
    const { app } = testApp({ ...NO_DEADLINE, preset: "summarize" });
    const response = await postCompact(app, largest.responses, {
      headers: COLD,
      query: "?provider=responses",
    });
    expect(await response.text()).toBe(largest.responses);
  });
});
