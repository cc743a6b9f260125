import { describe, expect, it } from "vitest";
import { subject } from "./compact-invariants.js";

/**
 * Regressions found by the property suite: /rehydrate must give back the exact request bytes,
 * also when the client spelled a string with escapes JSON.stringify does not write, and must
 * refuse (not silently repair) a body that is not UTF-8.
 */
const lines = (line: string) => Array.from({ length: 40 }, () => line).join("\\n");

/** An OpenAI body whose tool outputs get reduced; `literal` is its raw JSON text. */
function body(literal: string): string {
  return bodyOf([literal]);
}

/** An OpenAI body with these raw JSON literals as its first tool outputs, then four long ones. */
function bodyOf(literals: readonly string[]): string {
  const outputs = [
    ...literals,
    ...Array.from({ length: 4 }, (_, i) => `"${lines(`line ${i} of output`)}"`),
  ];
  const messages = outputs.flatMap((content, index) => [
    `{"role":"assistant","content":null,"tool_calls":[{"id":"c${index}","type":"function","function":{"name":"Bash","arguments":"{}"}}]}`,
    `{"role":"tool","tool_call_id":"c${index}","content":${content}}`,
  ]);
  // The agent declares its tool, so the model could expand a marker (§8.1).
  const tools = `[{"type":"function","function":{"name":"Bash","parameters":{"type":"object"}}}]`;
  return `{"model":"m","messages":[{"role":"user","content":"go"},${messages.join(",")}],"tools":${tools}}`;
}

const spellings: ReadonlyArray<readonly [string, string]> = [
  [
    "\\u003c escapes (Go, some Python clients)",
    `"${lines("error \\u003cnil\\u003e at main.go:12")}"`,
  ],
  [
    "ensure_ascii escapes of non-ASCII",
    `"${lines("caf\\u00e9 na\\u00efve r\\u00e9sum\\u00e9 failed")}"`,
  ],
  ["escaped solidus", `"${lines("GET https:\\/\\/example.com\\/api\\/v1 -> 500")}"`],
  ["upper-case hex escapes", `"${lines("\\u00C9CHEC: \\u003Cdone\\u003E")}"`],
];

describe("rehydrate(compact(x)) = x for every string spelling", () => {
  it.each(spellings)("%s", async (_name, literal) => {
    const { app } = subject("reversible");
    const input = body(literal);
    // Decided whole (§4a): the older outputs are masked.
    const headers = { "x-context-guru-session": "spelling", "x-context-guru-cache": "cold" };
    const compacted = await app.request("/compact", { method: "POST", body: input, headers });
    const output = await compacted.text();
    expect(output).not.toContain(literal);
    expect(compacted.headers.get("x-context-guru-markers")).not.toBe("0");
    const back = await app.request("/rehydrate", { method: "POST", body: output, headers });
    expect(back.status).toBe(200);
    expect(await back.text()).toBe(input);
  });
});

/** Compacts `input` in one session, rehydrates the result, and returns both texts. */
async function roundTrip(input: string, session: string) {
  const { app } = subject("reversible");
  const headers = { "x-context-guru-session": session, "x-context-guru-cache": "cold" };
  const compacted = await app.request("/compact", { method: "POST", body: input, headers });
  const output = await compacted.text();
  const back = await app.request("/rehydrate", { method: "POST", body: output, headers });
  expect(back.status).toBe(200);
  return { output, back: await back.text() };
}

const progress = (first: string) =>
  `${lines("collected 42 items")}\\n${first}ownloading 45%\\rDownloading 100%\\ndone`;

describe("rehydrate(compact(x)) = x when cleaned-up texts coincide", () => {
  it("gives each output its own original when two clean up to the same text", async () => {
    // Both lose their overwritten progress line; the second then duplicates the first.
    const input = bodyOf([`"${progress("x")}"`, `"${progress("D")}"`]);
    const { output, back } = await roundTrip(input, "coincide");
    expect(output).not.toBe(input);
    expect(back).toBe(input);
  });

  it("keeps an output verbatim when its cleaned text is another output's received text", async () => {
    const cleaned = `${lines("collected 42 items")}\\nDownloading 100%\\ndone`;
    const orders = [
      [`"${progress("D")}"`, `"${cleaned}"`],
      [`"${cleaned}"`, `"${progress("D")}"`],
    ];
    for (const [index, order] of orders.entries()) {
      const input = bodyOf(order);
      const { output, back } = await roundTrip(input, `verbatim-${index}`);
      expect(output).not.toBe(input);
      expect(back).toBe(input);
    }
  });

  it("gives a user message back as written when it reads like a cleaned output", async () => {
    const cleaned = `${lines("collected 42 items")}\\nDownloading 100%\\ndone`;
    const input = bodyOf([`"${progress("D")}"`]).replace(
      '"content":"go"',
      `"content":"${cleaned}"`,
    );
    const { output, back } = await roundTrip(input, "user-text");
    expect(output).not.toBe(input);
    expect(back).toBe(input);
  });

  it("gives back both spellings of one text written two ways", async () => {
    const text = lines("error <nil> at main.go:12");
    const input = bodyOf([`"${text}"`, `"${text.replaceAll("<", "\\u003c")}"`]);
    const { back } = await roundTrip(input, "two-spellings");
    expect(back).toBe(input);
  });
});

describe("POST /rehydrate on bytes that are not UTF-8", () => {
  it.each([
    ["a lone 0xff", [0xff]],
    ["an overlong NUL", [0xc0, 0x80]],
    ["an encoded surrogate", [0xed, 0xa0, 0x80]],
  ])("refuses %s with 400 instead of replacing it", async (_name, bad) => {
    const { app } = subject("reversible");
    const head = new TextEncoder().encode('{"messages":[{"role":"user","content":"');
    const tail = new TextEncoder().encode('"}]}');
    const bytes = Uint8Array.from([...head, ...bad, ...tail]);
    const response = await app.request("/rehydrate", { method: "POST", body: bytes });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "request body is not valid UTF-8" });
  });
});
