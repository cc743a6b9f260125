import { describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config/schema.js";
import { markerIds } from "../../src/expand/markers.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { CLEAN, COLD, MASK_BY_AGE, postCompact, testApp } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";

/**
 * The cache policy end to end (§4a): already-sent messages come back byte for byte while the
 * cache is warm; a cold cache (header, idle clock, budget, policy) re-decides the head once, and
 * the result is frozen again.
 */
const OUTPUTS = Array.from({ length: 8 }, (_, index) => logOutput(80, `o${index}`));
/** Turn k of one conversation: its first k tool outputs (every turn extends the one before). */
const turn = (k: number, outputs = OUTPUTS) => openaiBody(outputs.slice(0, k));
const MASKED = "[older tool output masked";

function messageTexts(text: string): string[] {
  return (scanBody(text)?.messages ?? []).map((span) => text.slice(span.start, span.end));
}
function toolsText(text: string): string | undefined {
  const span = scanBody(text)?.members.get("tools");
  return span && text.slice(span.start, span.end);
}
const masked = (text: string) => messageTexts(text).filter((m) => m.includes(MASKED)).length;

function conversation(config: ConfigInput = {}, clock?: () => number) {
  const { app } = testApp({ ...MASK_BY_AGE, ...config }, clock ? { clock } : {});
  const send = async (body: string, headers: Record<string, string> = {}) => {
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-session": "freeze", ...headers },
    });
    return { text: await response.text(), cache: response.headers.get("x-context-guru-cache") };
  };
  return { app, send };
}

describe("the session ledger freezes what was sent (§4a)", () => {
  it("an unknown history is warm: nothing reaches back, and the same body comes back the same", async () => {
    const { send } = conversation();
    const first = await send(turn(6));
    expect([first.cache, masked(first.text)]).toEqual(["warm", 0]);
    expect((await send(turn(6))).text).toBe(first.text);
  });

  it("a cold header re-decides the head once; the next warm turn gives it back byte for byte", async () => {
    const { send } = conversation();
    await send(turn(4));
    const cold = await send(turn(5), COLD);
    expect([cold.cache, masked(cold.text)]).toEqual(["cold", 2]);
    const warm = await send(turn(6));
    expect(warm.cache).toBe("warm");
    const sent = messageTexts(cold.text);
    expect(messageTexts(warm.text).slice(0, sent.length)).toEqual(sent);
    // Output 2 has left the newest three, but moving the mask would change a sent message.
    expect(masked(warm.text)).toBe(2);
  });

  it("a session idle past cache.ttl_seconds (an injected clock) is cold once, then warm again", async () => {
    let now = 1_000_000;
    const { send } = conversation({}, () => now);
    expect((await send(turn(4))).cache).toBe("warm");
    now += 300_001;
    const cold = await send(turn(5));
    expect([cold.cache, masked(cold.text)]).toEqual(["cold", 2]);
    now += 1_000;
    const warm = await send(turn(6));
    expect(warm.cache).toBe("warm");
    const sent = messageTexts(cold.text);
    expect(messageTexts(warm.text).slice(0, sent.length)).toEqual(sent);
  });

  it("cache.policy: ignore re-decides every turn", async () => {
    const { send } = conversation({ cache: { policy: "ignore" } });
    const five = await send(turn(5));
    const six = await send(turn(6));
    expect([five.cache, masked(five.text), six.cache, masked(six.text)]).toEqual([
      "cold",
      2,
      "cold",
      3,
    ]);
  });

  it("a warm turn over cache.context_budget_tokens is re-decided", async () => {
    const { send } = conversation({ cache: { context_budget_tokens: 2000 } });
    const over = await send(turn(6));
    expect([over.cache, masked(over.text)]).toEqual(["cold", 3]);
  });

  it("works in clean mode too: no stashes, still a ledger", async () => {
    const { send } = conversation(CLEAN);
    const cold = await send(turn(5), COLD);
    const warm = await send(turn(6));
    const sent = messageTexts(cold.text);
    expect([masked(cold.text), markerIds(cold.text)]).toEqual([2, []]);
    expect(messageTexts(warm.text).slice(0, sent.length)).toEqual(sent);
  });
});

describe("conversations that share a derived session key (§4a, §7)", () => {
  const other = Array.from({ length: 8 }, (_, index) => logOutput(80, `p${index}`));

  it("do not change each other's output", async () => {
    // The same system and first user message: one derived key, two conversations.
    const alone = testApp().app;
    const shared = testApp().app;
    const post = async (app: typeof alone, body: string, headers: Record<string, string> = {}) => {
      const response = await postCompact(app, body, { headers });
      return {
        text: await response.text(),
        session: response.headers.get("x-context-guru-session"),
      };
    };
    const a = [await post(alone, turn(4)), await post(alone, turn(5)), await post(alone, turn(6))];
    const b3 = await post(shared, turn(4, other), COLD);
    const a3 = await post(shared, turn(4));
    await post(shared, turn(5, other), COLD);
    const a4 = await post(shared, turn(5));
    await post(shared, turn(6, other), COLD);
    const a5 = await post(shared, turn(6));
    expect(b3.session).toBe(a3.session);
    expect([a3.text, a4.text, a5.text]).toEqual(a.map((response) => response.text));
  });
});

describe("the expand tool and the cache (§8.1)", () => {
  it("never appears or changes on a warm turn, and is added where the head is decided", async () => {
    const { send } = conversation();
    const first = await send(turn(3));
    // Nothing to mark on the first request: no tool, so nothing later may need one warm.
    expect(toolsText(first.text)).toBe(toolsText(turn(3)));
    const warm = await send(turn(4));
    expect(toolsText(warm.text)).toBe(toolsText(turn(4)));
    const cold = await send(turn(5), COLD);
    const tools = toolsText(cold.text);
    expect(tools).toContain("context_guru_expand");
    for (const k of [6, 7]) {
      const next = await send(turn(k));
      expect([next.cache, toolsText(next.text)]).toEqual(["warm", tools]);
    }
  });

  it("a warm turn without the tool writes no marker, and says why", async () => {
    const { app } = testApp();
    const duplicate = [...OUTPUTS.slice(0, 3), OUTPUTS[0] as string];
    const headers = { "x-context-guru-session": "degraded" };
    await postCompact(app, openaiBody(duplicate.slice(0, 3)), { headers });
    const response = await postCompact(app, openaiBody(duplicate), { headers });
    const text = await response.text();
    expect(response.headers.get("x-context-guru-markers-degraded")).toBe("tool_absent");
    expect(markerIds(text)).toEqual([]);
    // The repeated output is still reduced, visibly and one way: nobody could expand a marker.
    expect(messageTexts(text).at(-1)).toContain("[identical to an earlier tool output]");
  });

  it("a marker quoted in a document is not a marker: no tool is added for it", async () => {
    const { app } = testApp();
    const doc = "The compactor writes <<cg:0123456789abcdef>> where it dropped content.";
    const body = openaiBody([doc, "ok"]);
    const response = await postCompact(app, body, { headers: COLD });
    expect(await response.text()).toBe(body);
    expect(response.headers.get("x-context-guru-markers")).toBe("0");
  });
});
