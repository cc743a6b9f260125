import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";

/**
 * fast-check arbitraries for hostile and realistic request bodies. Every case is the exact bytes
 * a client sends, so invalid UTF-8 and raw-text tricks (duplicate keys, `__proto__` members,
 * odd number spellings and escapes) are expressible next to well-formed agent transcripts.
 */
export interface FuzzCase {
  readonly label: string;
  readonly bytes: Uint8Array;
}

/** A case that prints as its label, size and the start of its text in a failure report. */
export function fuzzCase(label: string, bytes: Uint8Array): FuzzCase {
  return {
    label,
    bytes,
    [fc.toStringMethod]: () => {
      const text = new TextDecoder().decode(bytes.subarray(0, 600));
      return `${label} (${bytes.byteLength} bytes): ${JSON.stringify(text)}`;
    },
  } as FuzzCase;
}

const compact: Spelling = { indent: 0, spaced: false, escapeNonAscii: false, escapeAngles: false };

/** An object written member by member: keys may repeat and may be `__proto__`. */
export class Members {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

/** A number literal written exactly as given (`1.0`, `1e3`, integers beyond 2^53). */
export class NumberLiteral {
  constructor(readonly raw: string) {}
}

/** How a value is spelled as JSON text. */
export interface Spelling {
  readonly indent: 0 | 1 | 2;
  readonly spaced: boolean;
  readonly escapeNonAscii: boolean;
  readonly escapeAngles: boolean;
}

const spelling: fc.Arbitrary<Spelling> = fc.record({
  indent: fc.constantFrom(0, 1, 2),
  spaced: fc.boolean(),
  escapeNonAscii: fc.boolean(),
  escapeAngles: fc.boolean(),
});

/** Writes a value as JSON text in the given spelling. */
export function writeJson(value: unknown, style: Spelling, depth = 0): string {
  const pad = style.indent === 0 ? "" : `\n${" ".repeat(style.indent * (depth + 1))}`;
  const close = style.indent === 0 ? "" : `\n${" ".repeat(style.indent * depth)}`;
  const colon = style.spaced ? " : " : ":";
  const comma = style.spaced && style.indent === 0 ? ", " : ",";
  if (value instanceof NumberLiteral) return value.raw;
  if (typeof value === "string") return writeString(value, style);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => pad + writeJson(item, style, depth + 1));
    return `[${items.join(comma)}${close}]`;
  }
  if (value instanceof Members || (typeof value === "object" && value !== null)) {
    const entries = value instanceof Members ? value.entries : Object.entries(value);
    if (entries.length === 0) return "{}";
    const items = entries.map(
      ([key, item]) =>
        `${pad}${writeString(key, style)}${colon}${writeJson(item, style, depth + 1)}`,
    );
    return `{${items.join(comma)}${close}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function writeString(text: string, style: Spelling): string {
  let raw = JSON.stringify(text);
  if (style.escapeAngles) raw = raw.replace(/</g, "\\u003c").replace(/>/g, "\\u003E");
  if (style.escapeNonAscii) {
    raw = raw.replace(
      /[^\x20-\x7e]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }
  return raw;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

// ---------------------------------------------------------------- tool output texts

const LOG_LINES = [
  "collected 42 items",
  "tests/test_query.py::test_alias PASSED",
  "tests/test_query.py::test_combine FAILED",
  "E   AssertionError: assert 3 == 4",
  'Traceback (most recent call last):\n  File "/testbed/orm/query.py", line 88, in combine',
  "npm warn deprecated inflight@1.0.6: This module is not supported",
  "added 312 packages in 4s",
  "src/router.ts:14:  const session = resolveSession(request);",
  "\u001b[32m✓\u001b[39m renders the header (3 ms)",
  "Downloading 45%|████▌     | 45/100 [00:02<00:03]\rDownloading 100%|██████████| 100/100",
  "warning: unused variable `payload`",
  "",
  "    at Object.<anonymous> (/home/dev/api/src/index.ts:10:5)",
  "=== 1 failed, 41 passed in 2.31s ===",
  "x".repeat(700),
];

/** A lone or reversed surrogate inside ordinary text. */
const surrogateText = fc
  .array(fc.constantFrom("\ud800", "\udfff", "\udbff", "\udc00\ud800", "ok ", "é", "😀"), {
    maxLength: 12,
  })
  .map((parts) => parts.join(""));

const logText = fc
  .array(fc.constantFrom(...LOG_LINES), { minLength: 5, maxLength: 60 })
  .map((lines) => lines.join("\n"));

const row = fc.record({
  id: fc.nat(9999),
  name: fc.constantFrom("alpha", "beta", "gamma", "delta"),
  ok: fc.boolean(),
  note: fc.constantFrom("", "error: timeout", "fine"),
});
const jsonArrayText = fc
  .tuple(fc.array(row, { minLength: 3, maxLength: 30 }), fc.constantFrom(0, 2))
  .map(([rows, indent]) => JSON.stringify(rows, null, indent));

const markerText = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/), logText)
  .map(([id, log]) => `${log}\n<<cg:${id}>> \u27eacg\u27eb`);

/** A string of `size` characters built from a repeated chunk (cheap to make, costly to read). */
export const hugeString = fc
  .tuple(
    fc.string({ minLength: 1, maxLength: 64 }),
    fc.integer({ min: 128 * 1024, max: 512 * 1024 }),
  )
  .map(([chunk, size]) => chunk.repeat(Math.ceil(size / chunk.length)).slice(0, size));

/** Texts a tool may return: logs, JSON, unicode edge cases, marker look-alikes, rarely huge. */
export const toolText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 120 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 200 }), weight: 80 },
  { arbitrary: surrogateText, weight: 80 },
  { arbitrary: logText, weight: 320 },
  { arbitrary: jsonArrayText, weight: 160 },
  { arbitrary: markerText, weight: 80 },
  { arbitrary: hugeString, weight: 1 },
);

// ---------------------------------------------------------------- transcripts

const toolName = fc.constantFrom("Read", "Bash", "Grep", "run_tests");
const callInput = fc.record({
  command: fc.constantFrom("pytest -q", "npm install", "git log", "cat a.py"),
});

/** A run of tool calls where outputs repeat (so dedup and mask have work), both shapes share it. */
const turns = fc
  .tuple(fc.array(toolText, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }))
  .chain(([pool, picks]) =>
    fc.tuple(
      fc.constant(
        picks.length === 0 ? pool : picks.map((pick) => pool[pick % pool.length] as string),
      ),
      fc.array(fc.tuple(toolName, callInput, fc.boolean(), fc.boolean()), {
        minLength: picks.length || pool.length,
        maxLength: picks.length || pool.length,
      }),
    ),
  );

/**
 * What a transcript declares of tools: none (the model cannot call the expand tool), the agent's
 * own tools, or tools with a `tool_choice` that forces one (§8.1: markers then act as off).
 */
const toolsDeclared = fc.constantFrom("none", "declared", "declared", "forced");

function declaredTools(provider: "openai" | "anthropic", how: string): Record<string, unknown> {
  if (how === "none") return {};
  const tools =
    provider === "openai"
      ? [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }]
      : [{ name: "Bash", input_schema: { type: "object" } }];
  const forced = provider === "openai" ? "required" : { type: "any" };
  return how === "forced" ? { tools, tool_choice: forced } : { tools };
}

export const openaiTranscript: fc.Arbitrary<unknown> = fc
  .tuple(
    turns,
    fc.string({ maxLength: 30 }),
    fc.boolean(),
    fc.option(fc.string(), { nil: undefined }),
    toolsDeclared,
  )
  .map(([[outputs, calls], goal, stream, user, tools]) => {
    const messages: unknown[] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: goal },
    ];
    outputs.forEach((text, index) => {
      const [name, input, asParts] = calls[index] ?? ["Bash", {}, false];
      const id = `call_${index}`;
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [
          { id, type: "function", function: { name, arguments: JSON.stringify(input) } },
        ],
      });
      messages.push({
        role: "tool",
        tool_call_id: id,
        content: asParts ? [{ type: "text", text }] : text,
      });
    });
    messages.push({ role: "user", content: "continue" });
    return {
      model: "gpt-4o",
      messages,
      temperature: new NumberLiteral("0.20"),
      stream,
      seed: new NumberLiteral("12345678901234567890123"),
      ...(user === undefined ? {} : { user }),
      ...declaredTools("openai", tools),
    };
  });

export const anthropicTranscript: fc.Arbitrary<unknown> = fc
  .tuple(turns, fc.string({ maxLength: 30 }), fc.boolean(), toolsDeclared)
  .map(([[outputs, calls], goal, systemBlocks, tools]) => {
    const messages: unknown[] = [{ role: "user", content: goal }];
    outputs.forEach((text, index) => {
      const [name, input, asBlocks, isError] = calls[index] ?? ["Bash", {}, false, false];
      const id = `toolu_${index}`;
      messages.push({ role: "assistant", content: [{ type: "tool_use", id, name, input }] });
      const result: Record<string, unknown> = {
        type: "tool_result",
        tool_use_id: id,
        content: asBlocks
          ? [
              { type: "text", text },
              { type: "image", source: {} },
            ]
          : text,
      };
      if (isError) result.is_error = true;
      if (index % 3 === 2) result.cache_control = { type: "ephemeral" };
      messages.push({ role: "user", content: [result] });
    });
    return {
      model: "claude-sonnet-4-5",
      max_tokens: new NumberLiteral("1.024e3"),
      system: systemBlocks ? [{ type: "text", text: "You are a coding agent." }] : "Be brief.",
      messages,
      ...declaredTools("anthropic", tools),
    };
  });

// ---------------------------------------------------------------- hostile shapes

/** `messages` of every wrong type, and message arrays whose elements are of wrong types. */
export const wrongMessages: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, 0, -1.5, true, "messages", {}),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(
    fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.record({
        role: fc.oneof(fc.constantFrom("tool", "user", "assistant"), fc.jsonValue({ maxDepth: 1 })),
        content: fc.oneof(fc.jsonValue({ maxDepth: 2 }), toolText),
        tool_calls: fc.jsonValue({ maxDepth: 2 }),
        tool_call_id: fc.jsonValue({ maxDepth: 0 }),
      }),
      fc.record({
        role: fc.constant("user"),
        content: fc.array(
          fc.record({
            type: fc.constantFrom("tool_result", "text", "tool_use", 7),
            content: fc.oneof(fc.jsonValue({ maxDepth: 2 }), toolText),
            text: fc.jsonValue({ maxDepth: 1 }),
            tool_use_id: fc.jsonValue({ maxDepth: 0 }),
          }),
          { maxLength: 4 },
        ),
      }),
    ),
    { maxLength: 8 },
  ),
);

/** An array or object nested `depth` levels deep, as raw text (no recursion needed to write it). */
export const deepNesting: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean())
  .map(([depth, objects]) =>
    objects
      ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
      : `${"[".repeat(depth)}${"]".repeat(depth)}`,
  );

const hostileKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
);

/** A transcript with hostile members written in: `__proto__` keys, repeated keys, deep values. */
const transcript = fc.oneof(openaiTranscript, anthropicTranscript);

export const hostileBody: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    transcript,
    spelling,
    hostileKey,
    fc.nat(),
    fc.constantFrom("proto", "duplicate", "duplicate-top", "deep"),
    deepNesting,
  )
  .map(([body, style, key, at, kind, deep]) => {
    const record = body as { messages: unknown[] };
    const entries: Array<[string, unknown]> = Object.entries(record);
    const messages = [...record.messages];
    const index = at % messages.length;
    const message = messages[index] as Record<string, unknown>;
    if (kind === "proto") {
      messages[index] = new Members([[key, { polluted: true }], ...Object.entries(message)]);
      entries.unshift([key, new Members([["polluted", true]])]);
    } else if (kind === "duplicate") {
      messages[index] = new Members([...Object.entries(message), ["content", "second"]]);
    } else if (kind === "duplicate-top") {
      entries.push(["messages", []]);
    }
    const members = new Members(
      entries.map(([name, value]) => [
        name,
        name === "messages" && kind !== "duplicate-top" ? messages : value,
      ]),
    );
    let text = writeJson(members, style);
    if (kind === "deep") text = text.replace(/^\{/, `{"deep":${deep},`);
    return fuzzCase(`hostile:${kind}:${key}`, utf8(text));
  });

/** Any JSON value, spelled in any style: most are not request bodies at all. */
export const arbitraryJson: fc.Arbitrary<FuzzCase> = fc
  .tuple(fc.jsonValue({ maxDepth: 4 }), spelling)
  .map(([value, style]) => fuzzCase("json", utf8(writeJson(value, style))));

/** Well-formed agent transcripts in both shapes, spelled in any style. */
export const transcriptBody: fc.Arbitrary<FuzzCase> = fc
  .tuple(transcript, spelling)
  .map(([body, style]) => fuzzCase("transcript", utf8(writeJson(body, style))));

/** A transcript whose `messages` is of a wrong type or holds wrongly typed messages. */
export const wrongMessagesBody: fc.Arbitrary<FuzzCase> = fc
  .tuple(wrongMessages, spelling)
  .map(([messages, style]) =>
    fuzzCase("wrong-messages", utf8(writeJson({ model: "m", messages }, style))),
  );

// ---------------------------------------------------------------- byte-level mutations

const INVALID_UTF8 = [
  [0xff],
  [0xc0, 0x80],
  [0x80],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];

export type Mutation =
  | { readonly kind: "truncate"; readonly at: number }
  | { readonly kind: "invalid-utf8"; readonly at: number; readonly bytes: readonly number[] }
  | { readonly kind: "replace-char"; readonly at: number; readonly char: string }
  | { readonly kind: "duplicate-messages" }
  | { readonly kind: "proto-member" }
  | { readonly kind: "lone-surrogate"; readonly at: number }
  | { readonly kind: "tool-text"; readonly at: number; readonly text: string }
  | { readonly kind: "wrong-message"; readonly at: number; readonly message: unknown };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("truncate"), at: fc.nat() }),
  fc.record({
    kind: fc.constant("invalid-utf8"),
    at: fc.nat(),
    bytes: fc.constantFrom(...INVALID_UTF8),
  }),
  fc.record({
    kind: fc.constant("replace-char"),
    at: fc.nat(),
    char: fc.constantFrom('"', "\\", "{", "]", ",", "x", "\u0000"),
  }),
  fc.record({ kind: fc.constant("duplicate-messages") }),
  fc.record({ kind: fc.constant("proto-member") }),
  fc.record({ kind: fc.constant("lone-surrogate"), at: fc.nat() }),
  fc.record({ kind: fc.constant("tool-text"), at: fc.nat(), text: toolText }),
  fc.record({ kind: fc.constant("wrong-message"), at: fc.nat(), message: wrongMessages }),
) as fc.Arbitrary<Mutation>;

/** Applies one mutation to a JSON request body; the result may well not be JSON any more. */
export function mutate(text: string, change: Mutation): Uint8Array {
  switch (change.kind) {
    case "truncate":
      return utf8(text.slice(0, change.at % (text.length + 1)));
    case "invalid-utf8": {
      const bytes = utf8(text);
      const at = change.at % (bytes.length + 1);
      return Uint8Array.from([...bytes.subarray(0, at), ...change.bytes, ...bytes.subarray(at)]);
    }
    case "replace-char": {
      const at = change.at % Math.max(text.length, 1);
      return utf8(text.slice(0, at) + change.char + text.slice(at + 1));
    }
    case "duplicate-messages":
      return utf8(text.replace(/^\s*\{/, '{"messages":[],'));
    case "proto-member":
      return utf8(
        text.replace(/^\s*\{/, '{"__proto__":{"messages":[]},"constructor":{"prototype":1},'),
      );
    case "lone-surrogate":
      return utf8(replaceNthString(text, change.at, (raw) => `${raw.slice(0, -1)}\\ud800"`));
    case "tool-text":
    case "wrong-message": {
      const body = JSON.parse(text) as { messages?: unknown };
      if (!Array.isArray(body.messages) || body.messages.length === 0) return utf8(text);
      const index = change.at % body.messages.length;
      const message = body.messages[index] as Record<string, unknown>;
      body.messages[index] =
        change.kind === "wrong-message"
          ? change.message
          : {
              ...message,
              content: typeof message.content === "string" ? change.text : message.content,
            };
      return utf8(JSON.stringify(body));
    }
  }
}

function replaceNthString(text: string, n: number, replace: (raw: string) => string): string {
  const strings = [...text.matchAll(/"(?:[^"\\]|\\.)*"/g)];
  const match = strings[n % Math.max(strings.length, 1)];
  if (match?.index === undefined) return text;
  return text.slice(0, match.index) + replace(match[0]) + text.slice(match.index + match[0].length);
}

/** Generated transcripts, mutated at the byte or value level. */
export const mutatedTranscript: fc.Arbitrary<FuzzCase> = fc
  .tuple(transcript, mutation)
  .map(([body, change]) =>
    fuzzCase(`mutated:${change.kind}`, mutate(writeJson(body, compact), change)),
  );

// ---------------------------------------------------------------- the families

/** A family of generated bodies: `id` names it in `npm run fuzz`, `title` in the test suite. */
export interface FuzzFamily {
  readonly id: string;
  readonly title: string;
  readonly arbitrary: fc.Arbitrary<FuzzCase>;
}

/** The generated families both the property suite and `npm run fuzz` run (corpus aside). */
export const FUZZ_FAMILIES: readonly FuzzFamily[] = [
  { id: "arbitrary-json", title: "arbitrary JSON values", arbitrary: arbitraryJson },
  { id: "transcripts", title: "agent transcripts in both shapes", arbitrary: transcriptBody },
  {
    id: "hostile",
    title: "__proto__ keys, duplicate keys and deep nesting",
    arbitrary: hostileBody,
  },
  { id: "wrong-messages", title: "messages of every wrong type", arbitrary: wrongMessagesBody },
  {
    id: "mutated-transcripts",
    title: "mutated transcripts (truncation, invalid UTF-8, lone surrogates)",
    arbitrary: mutatedTranscript,
  },
];

// ---------------------------------------------------------------- the shared corpus

/** ../shared/corpus/agent beside the repository; absent on machines without it. */
export const agentCorpusDir = resolve(import.meta.dirname, "../../../shared/corpus/agent");
export const hasAgentCorpus = existsSync(join(agentCorpusDir, "index.json"));

/** The request bodies of ../shared/corpus/agent as JSON text, in index order ([] when absent). */
export function agentCorpusBodies(): string[] {
  if (!hasAgentCorpus) return [];
  const index = JSON.parse(readFileSync(join(agentCorpusDir, "index.json"), "utf8")) as Array<{
    file: string;
  }>;
  return index.map(({ file }) => {
    const { body } = JSON.parse(readFileSync(join(agentCorpusDir, file), "utf8")) as {
      body: unknown;
    };
    return JSON.stringify(body);
  });
}

/** Corpus bodies, each either as it is or mutated once. */
export function mutatedCorpus(bodies: readonly string[]): fc.Arbitrary<FuzzCase> {
  return fc
    .tuple(fc.nat(bodies.length - 1), fc.option(mutation, { freq: 4 }))
    .map(([index, change]) => {
      const text = bodies[index] as string;
      return change === null
        ? fuzzCase(`corpus:${index}`, utf8(text))
        : fuzzCase(`corpus:${index}:${change.kind}`, mutate(text, change));
    });
}
