import { describe, expect, it } from "vitest";
import { Compactor, type CompactResult } from "../../src/compact/compactor.js";
import { readHistory } from "../../src/compact/history.js";
import { CompactorMemos } from "../../src/compact/memos.js";
import { parseRequest } from "../../src/compact/parse.js";
import type { CompactContext, ParsedRequest } from "../../src/compact/turn.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { ANTHROPIC_TOOLS, logOutput } from "../support/bodies.js";

/**
 * A warm turn parses, scans and reads only the messages past those it shares byte for byte with
 * its session's last request (compact/read-memo.ts); whatever the memo holds, the answer is the
 * one a compactor that never saw the session gives.
 */

const HASH_KEY = "read-memo-key";
const config = parseConfig({});

function context(): CompactContext {
  return {
    config,
    store: createStore(config.store),
    registry: components,
    memos: new CompactorMemos(config.limits.memo_bytes, HASH_KEY, 60_000),
    clock: () => 1_000_000,
  };
}

/** An Anthropic body after `turns` Bash calls, each answered by a build log. */
function turnsBody(turns: number, extra: Record<string, unknown> = {}, tail = ""): string {
  const messages: unknown[] = [{ role: "user", content: "fix the build" }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: "assistant",
      content: [
        { type: "tool_use", id: `t${turn}`, name: "Bash", input: { command: `make ${turn}` } },
      ],
    });
    messages.push({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: `t${turn}`, content: logOutput(60, `b${turn}`) },
      ],
    });
  }
  const text = JSON.stringify({
    model: "claude",
    max_tokens: 1024,
    ...extra,
    tools: ANTHROPIC_TOOLS,
    messages,
  });
  return tail === "" ? text : `${text.slice(0, -1)}${tail}}`;
}

/** Parses and places `text` as the compactor does, so the next request finds it in the memo. */
async function read(ctx: CompactContext, text: string): Promise<ParsedRequest> {
  const request = parseRequest(ctx, text, { session: "s" });
  if (!("transcript" in request)) throw new Error(`not compactable: ${request.passthrough}`);
  await readHistory(ctx, request);
  return request;
}

/**
 * The bodies `turns` come back as from one compactor that remembers what it read, and from a new
 * compactor every turn on a store of its own: nothing read before, the same history.
 */
async function bothWays(turns: readonly string[]) {
  const make = (store: Store) =>
    new Compactor({
      config,
      store,
      registry: components,
      hashKey: HASH_KEY,
      clock: () => 1_000_000,
    });
  const store = createStore(config.store);
  const remembering = make(store);
  const remembered: string[] = [];
  for (const text of turns)
    remembered.push((await remembering.compact(text, { session: "s" })).text);
  const otherStore = createStore(config.store);
  const forgotten: string[] = [];
  for (const text of turns) {
    forgotten.push((await make(otherStore).compact(text, { session: "s" })).text);
  }
  return { remembered, forgotten, remembering, fresh: () => make(store) };
}

const answerOf = (result: CompactResult) => ({
  text: result.text,
  session: result.session,
  passthrough: result.passthrough,
});

describe("a warm turn reads only its new messages", () => {
  it("takes the shared messages as parsed and read, and reads the rest", async () => {
    const ctx = context();
    const first = await read(ctx, turnsBody(3));
    const second = await read(ctx, turnsBody(4));
    // Every message of the first body is re-sent byte for byte.
    expect(second.recalled?.shared).toBe(first.messages.length);
    // The shared elements are the first body's own objects; the new ones were parsed.
    expect(second.messages[1]).toBe(first.messages[1]);
    expect(second.messages.at(-1)).not.toBe(first.messages.at(-1));
    expect(second.transcript.outputs[0]).toBe(first.transcript.outputs[0]);
    expect(second.transcript.outputs).toHaveLength(4);
    // What it took is what a whole read gives.
    const whole = parseRequest(context(), turnsBody(4), { session: "s" });
    if (!("transcript" in whole)) throw new Error("not compactable");
    expect(second.body).toEqual(whole.body);
    expect(second.scan).toEqual(whole.scan);
    expect(second.transcript).toEqual(whole.transcript);
    expect(second.tokensBefore).toBe(whole.tokensBefore);
  });

  it("a request that shares no message is read whole", async () => {
    const ctx = context();
    await read(ctx, turnsBody(3));
    const other = await read(ctx, turnsBody(2, { system: "another prompt" }));
    expect(other.recalled).toBeUndefined();
  });

  it("a conversation key repeated after the shared messages is read as a whole parse reads it", async () => {
    const ctx = context();
    await read(ctx, turnsBody(2));
    // The last `messages` wins in JSON.parse: the body is ambiguous, and goes as it came.
    const text = turnsBody(3, {}, ',"messages":[{"role":"user","content":"other"}]');
    const resumed = parseRequest(ctx, text, { session: "s" });
    const whole = parseRequest(context(), text, { session: "s" });
    expect(resumed).toEqual(whole);
    expect("passthrough" in resumed && resumed.passthrough).toBe("ambiguous_keys");
  });

  it("text that is not JSON past the shared messages is not JSON", async () => {
    const ctx = context();
    await read(ctx, turnsBody(2));
    const text = turnsBody(2).replace(/\]\}$/, ",]}");
    const answer = parseRequest(ctx, text, { session: "s" });
    expect("passthrough" in answer && answer.passthrough).toBe("not_json");
  });

  it("a body read as another wire shape than the last one is read whole", async () => {
    const ctx = context();
    await read(ctx, turnsBody(2));
    const request = parseRequest(ctx, turnsBody(3), { session: "s", provider: "openai" });
    if (!("transcript" in request)) throw new Error("not compactable");
    expect(request.shape.name).toBe("openai");
    expect(request.recalled).toBeUndefined();
    const whole = parseRequest(context(), turnsBody(3), { session: "s", provider: "openai" });
    if (!("transcript" in whole)) throw new Error("not compactable");
    expect(request.body).toEqual(whole.body);
    expect(request.transcript).toEqual(whole.transcript);
  });

  it("gives the bytes a compactor that never read the session gives", async () => {
    const turns = [2, 3, 4, 5].map((count) => turnsBody(count));
    const { remembered, forgotten, remembering, fresh } = await bothWays(turns);
    expect(remembered).toEqual(forgotten);
    expect(answerOf(await remembering.compact(turns[3] as string, { session: "s" }))).toEqual(
      answerOf(await fresh().compact(turns[3] as string, { session: "s" })),
    );
  });

  it("keeps the spelling of a literal written with escapes JSON.stringify would not write", async () => {
    // `\u00e9` where JSON.stringify writes `é`: each turn's body spells its outputs so.
    const spelled = (count: number) =>
      turnsBody(count).replaceAll("compiled", "compil\\u00e9d").replaceAll("/", "\\/");
    const turns = [2, 3, 4].map(spelled);
    expect(JSON.parse(turns[0] as string)).toBeTruthy();
    const { remembered, forgotten } = await bothWays(turns);
    expect(remembered).toEqual(forgotten);
    // The outputs left as they came keep their bytes as written.
    expect(remembered.at(-1)).toContain("compil\\u00e9d");
  });
});
