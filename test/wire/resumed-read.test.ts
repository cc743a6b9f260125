import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReadMemo } from "../../src/compact/read-memo.js";
import { resumeScan, scanBody } from "../../src/wire/json-scan.js";
import { wireShape } from "../../src/wire/registry.js";
import { parseResumed } from "../../src/wire/resume-parse.js";
import { readConversation } from "../../src/wire/transcript.js";
import type { Provider } from "../../src/wire/types.js";

/**
 * A warm turn re-sends its history byte for byte: the scan and the transcript of the messages it
 * shares with the session's last request are taken from that read (compact/read-memo.ts), and
 * must be exactly what a whole read of the new body gives, whatever changed after them.
 */

const classify = () => "text" as const;

/** Reads `text` as `provider` from scratch, and resumed from a read of `prior`. */
function bothReads(provider: Provider, prior: string, text: string) {
  const shape = wireShape(provider);
  const memo = new ReadMemo(1 << 24);
  const priorScan = scanBody(prior, shape.scan);
  if (!priorScan) throw new Error("prior is not an object");
  const priorBody = JSON.parse(prior) as Record<string, unknown>;
  const priorRead = readConversation(
    shape,
    priorBody[shape.scan.conversation] as unknown[],
    priorScan,
    classify,
  );
  const conversation = shape.scan.conversation;
  memo.remember("s", {
    text: prior,
    shape: provider,
    conversation,
    body: priorBody,
    scan: priorScan,
    read: priorRead,
    digests: [],
  });
  const body = JSON.parse(text) as Record<string, unknown>;
  const messages = body[conversation] as unknown[];
  const whole = scanBody(text, shape.scan);
  const fresh = whole && readConversation(shape, messages, whole, classify);
  const recalled = memo.recall("s", text);
  const parsed = recalled && parseResumed(text, recalled.prior, recalled.shared);
  const scan = recalled && resumeScan(text, shape.scan, recalled.prior.scan, recalled.shared);
  const resumed =
    scan &&
    recalled &&
    readConversation(shape, messages, scan, classify, {
      read: recalled.prior.read,
      shared: recalled.shared,
    });
  return { body, parsed, whole, fresh, scan, resumed, shared: recalled?.shared ?? 0 };
}

function expectSame(provider: Provider, prior: string, text: string, least = 0) {
  const { body, parsed, whole, fresh, scan, resumed, shared } = bothReads(provider, prior, text);
  expect(shared).toBeGreaterThanOrEqual(least);
  if (shared === 0) return;
  expect(parsed).toEqual(body);
  expect(scan).toEqual(whole);
  expect(resumed?.transcript).toEqual(fresh?.transcript);
  expect(resumed?.found).toEqual(fresh?.found);
}

const anthropicTurn = (n: number, output: string, breakpoint: boolean) => [
  {
    role: "assistant",
    content: [
      { type: "text", text: `step ${n}` },
      { type: "tool_use", id: `t${n}`, name: "Bash", input: { command: `ls ${n}` } },
    ],
  },
  {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: `t${n}`,
        content: output,
        ...(breakpoint ? { cache_control: { type: "ephemeral" } } : {}),
      },
    ],
  },
];

const openaiTurn = (n: number, output: string) => [
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: `c${n}`,
        type: "function",
        function: { name: "shell", arguments: `{"cmd":"ls ${n}"}` },
      },
    ],
  },
  { role: "tool", tool_call_id: `c${n}`, content: output },
];

const responsesTurn = (n: number, output: string) => [
  { type: "function_call", call_id: `r${n}`, name: "shell", arguments: `{"cmd":"ls ${n}"}` },
  { type: "function_call_output", call_id: `r${n}`, output },
];

/** A session's body after `turns` turns of tool calls, the way each shape's agents send it. */
function body(
  provider: Provider,
  outputs: readonly string[],
  extra: { tail?: string | undefined } = {},
) {
  const goal = "fix the failing test";
  if (provider === "anthropic") {
    const messages = [
      { role: "user", content: goal },
      ...outputs.flatMap((output, n) => anthropicTurn(n, output, n === outputs.length - 1)),
    ];
    return JSON.stringify({ model: "m", system: "s", messages, ...tailOf(extra) });
  }
  if (provider === "openai") {
    const messages = [
      { role: "user", content: goal },
      ...outputs.flatMap((output, n) => openaiTurn(n, output)),
    ];
    return JSON.stringify({ model: "m", messages, tools: [], ...tailOf(extra) });
  }
  const input = [
    { role: "user", content: [{ type: "input_text", text: goal }] },
    ...outputs.flatMap((output, n) => responsesTurn(n, output)),
  ];
  return JSON.stringify({ model: "m", input, ...tailOf(extra) });
}

const tailOf = (extra: { tail?: string | undefined }) =>
  extra.tail ? { metadata: { note: extra.tail } } : {};

const PROVIDERS: readonly Provider[] = ["anthropic", "openai", "responses"];

describe("a body parsed from its shared messages on is the body JSON.parse gives", () => {
  const prior = JSON.stringify({
    model: "m",
    messages: [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
    ],
  });
  const recalledFor = (text: string) => {
    const memo = new ReadMemo(1 << 20);
    const scan = scanBody(prior);
    if (!scan) throw new Error("prior is not an object");
    const body = JSON.parse(prior) as { messages: unknown[] };
    const { messages } = body;
    memo.remember("s", {
      text: prior,
      shape: "openai",
      conversation: "messages",
      body,
      scan,
      read: readConversation(wireShape("openai"), messages, scan, classify),
      digests: [],
    });
    return memo.recall("s", text);
  };

  it.each([
    ["a trailing comma", `${prior.slice(0, -2)},]}`],
    ["no comma before the next element", `${prior.slice(0, -2)} {"role":"user","content":"c"}]}`],
    ["a broken rest", `${prior.slice(0, -2)},{"role":]}`],
  ])("text that is not JSON (%s) is left to a whole parse", (_, text) => {
    expect(() => JSON.parse(text)).toThrow();
    const recalled = recalledFor(text);
    expect(recalled?.shared).toBeGreaterThan(0);
    if (recalled) expect(parseResumed(text, recalled.prior, recalled.shared)).toBeUndefined();
  });

  it("takes the members after the conversation as they were when their bytes are", () => {
    const withTools = (messages: string) =>
      `{"model":"m","messages":[${messages}],"tools":[{"name":"Bash"}],"system":"s"}`;
    const first = '{"role":"user","content":"a"}';
    const memo = new ReadMemo(1 << 20);
    const before = withTools(first);
    const body = JSON.parse(before) as { messages: unknown[] };
    const scan = scanBody(before);
    if (!scan) throw new Error("not an object");
    memo.remember("s", {
      text: before,
      shape: "openai",
      conversation: "messages",
      body,
      scan,
      read: readConversation(wireShape("openai"), body.messages, scan, classify),
      digests: [],
    });
    for (const text of [
      withTools(`${first},{"role":"assistant","content":"b"}`),
      withTools(first),
      `${withTools(`${first},{"role":"user","content":"c"}`).slice(0, -1)},"n":1}`,
      `{"model":"m","messages":[${first},{"role":"user","content":"c"}]}`,
    ]) {
      const recalled = memo.recall("s", text);
      expect(recalled?.shared).toBe(1);
      const parsed = recalled && parseResumed(text, recalled.prior, recalled.shared);
      expect(parsed).toEqual(JSON.parse(text));
      expect(Object.keys(parsed ?? {})).toEqual(Object.keys(JSON.parse(text)));
    }
    const same = withTools(`${first},{"role":"assistant","content":"b"}`);
    const recalled = memo.recall("s", same);
    const parsed = recalled && parseResumed(same, recalled.prior, recalled.shared);
    // The tools are the earlier body's own value.
    expect(parsed?.tools).toBe((body as Record<string, unknown>).tools);
  });

  it("shares the shared elements themselves, and parses the new ones", () => {
    const text = `${prior.slice(0, -2)},{"role":"user","content":"c"}], "n": 1}`;
    const recalled = recalledFor(text);
    const parsed = recalled && parseResumed(text, recalled.prior, recalled.shared);
    expect(parsed).toEqual(JSON.parse(text));
    const messages = parsed?.messages as unknown[];
    const before = recalled?.prior.body.messages as unknown[] | undefined;
    expect(messages[0]).toBe(before?.[0]);
  });
});

describe("a read resumed at the shared messages is a whole read", () => {
  it.each(PROVIDERS)("%s: a turn that appends messages", (provider) => {
    const outputs = ["a\nb", 'quoted "x" \\ y', "é ü \u2028"];
    const prior = body(provider, outputs);
    const text = body(provider, [...outputs, "new output"]);
    expectSame(provider, prior, text, 2);
  });

  it.each(PROVIDERS)("%s: the same body again, and one that goes back", (provider) => {
    const outputs = ["one", "two", "three"];
    expectSame(provider, body(provider, outputs), body(provider, outputs), 5);
    expectSame(provider, body(provider, outputs), body(provider, outputs.slice(0, 1)), 1);
  });

  it.each(PROVIDERS)("%s: members after the conversation change", (provider) => {
    const outputs = ["one", "two"];
    expectSame(provider, body(provider, outputs), body(provider, outputs, { tail: "t" }), 4);
  });

  it("anthropic: a moved breakpoint re-reads the message it left, answered by an earlier call", () => {
    // The last tool result loses its cache_control next turn: its message is read again, and
    // its output pairs with the call asked for in a shared message.
    const prior = body("anthropic", ["one", "two"]);
    const text = body("anthropic", ["one", "two", "three"]);
    const { resumed } = bothReads("anthropic", prior, text);
    expect(resumed?.transcript.outputs[1]?.call?.id).toBe("t1");
    expectSame("anthropic", prior, text, 3);
  });

  it("a call answered only in the new messages is answered", () => {
    const prior = JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "go" }, openaiTurn(0, "x")[0]],
    });
    const text = JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "go" }, ...openaiTurn(0, "x")],
    });
    const { resumed } = bothReads("openai", prior, text);
    expect(resumed?.transcript.slots.call[0]?.answered).toBe(true);
    expectSame("openai", prior, text, 2);
  });

  it("nothing shared: no resumed read", () => {
    const { shared } = bothReads("openai", body("openai", ["a"]), JSON.stringify({ messages: [] }));
    expect(shared).toBe(0);
  });

  it("holds for any edit after any shared messages, in every shape", () => {
    const outputText = fc.string({ unit: "binary", maxLength: 40 });
    fc.assert(
      fc.property(
        fc.constantFrom(...PROVIDERS),
        fc.array(outputText, { minLength: 1, maxLength: 6 }),
        fc.array(outputText, { maxLength: 4 }),
        fc.nat(),
        fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        (provider, outputs, added, keep, tail) => {
          const kept = outputs.slice(0, (keep % outputs.length) + 1);
          const prior = body(provider, outputs);
          const text = body(provider, [...kept, ...added], { tail });
          expectSame(provider, prior, text);
        },
      ),
      { numRuns: 300 },
    );
  });
});
