import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ServedUsage } from "../../src/cache/usage.js";
import { tapUsage } from "../../src/cache/usage-tap.js";
import { isRecord } from "../../src/wire/is-record.js";
import { SHAPES } from "../../src/wire/registry.js";
import type { UsageReading } from "../../src/wire/shape.js";
import { openaiChat } from "../../src/wire/shapes/openai-chat/index.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

const MAX_LINE_CHARS = 1024 * 1024;

/**
 * The reference: the reader of event streams as it was when it joined its unended line to each
 * chunk and searched the two again (a JSON body is read as before, and is not tested here).
 */
class ReferenceReader {
  readonly #decoder = new TextDecoder();
  #mode: "sse" | undefined;
  #line = "";
  #usage: Record<string, unknown> | undefined;

  constructor(private readonly reading: UsageReading) {}

  push(chunk: Uint8Array): void {
    const text = this.#decoder.decode(chunk, { stream: true });
    if (this.#mode === undefined && text.trimStart() !== "") this.#mode = "sse";
    if (this.#mode === "sse") this.#lines(text, false);
  }

  finish(): ServedUsage | undefined {
    const rest = this.#decoder.decode();
    if (this.#mode !== "sse") return undefined;
    this.#lines(rest, true);
    return this.reading.served(this.#usage);
  }

  #lines(text: string, last: boolean): void {
    const joined = this.#line + text;
    const end = last ? joined.length : Math.max(joined.lastIndexOf("\n"), joined.lastIndexOf("\r"));
    if (end < 0) {
      this.#line = joined.length > MAX_LINE_CHARS ? "" : joined;
      return;
    }
    const complete = joined.slice(0, end);
    this.#line = joined.slice(end + 1);
    if (!complete.includes('"usage"')) return;
    for (const line of complete.split(/\r\n|\r|\n/)) {
      if (line.startsWith("data:") && line.includes('"usage"')) this.#data(line.slice(5));
    }
  }

  #data(text: string): void {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return;
    }
    if (isRecord(data)) this.#usage = this.reading.fromEvent(data, this.#usage);
  }
}

/** `chunks` as a stream. */
function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[at++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/** What the tap reports for `chunks`, and what the reference reports. */
async function tappedAndReference(
  chunks: Uint8Array[],
  format: UsageReading,
): Promise<{ tapped: (ServedUsage | undefined)[]; reference: (ServedUsage | undefined)[] }> {
  const tapped: (ServedUsage | undefined)[] = [];
  await new Response(tapUsage(streamOf(chunks), format, (usage) => tapped.push(usage))).text();
  const reader = new ReferenceReader(format);
  for (const chunk of chunks) reader.push(chunk);
  return { tapped, reference: [reader.finish()] };
}

/** `bytes` cut at `cuts` (anywhere: inside a CRLF or inside a character's UTF-8 bytes). */
function cutAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const ends = [...cuts.map((cut) => cut % (bytes.length + 1)), bytes.length].sort((a, b) => a - b);
  let at = 0;
  return ends.map((end) => {
    const piece = bytes.slice(at, end);
    at = end;
    return piece;
  });
}

const tokens = fc.nat({ max: 100_000 });
/** Lines of the three providers' streams: usage of every shape, and what is not usage. */
const usageLine = fc.oneof(
  fc
    .tuple(tokens, tokens)
    .map(
      ([prompt, cached]) =>
        `data: {"usage":{"prompt_tokens":${prompt},"prompt_tokens_details":{"cached_tokens":${cached}}}}`,
    ),
  fc
    .tuple(tokens, tokens)
    .map(
      ([input, read]) =>
        `data: {"type":"message_start","message":{"usage":{"input_tokens":${input},"cache_read_input_tokens":${read}}}}`,
    ),
  fc
    .tuple(tokens, fc.constantFrom("", ',"cache_creation_input_tokens":5'))
    .map(
      ([input, written]) =>
        `data:{"type":"message_delta","usage":{"input_tokens":${input}${written}}}`,
    ),
  fc
    .tuple(tokens, tokens)
    .map(
      ([input, cached]) =>
        `data: {"response":{"usage":{"input_tokens":${input},"input_tokens_details":{"cached_tokens":${cached}}}}}`,
    ),
  fc.constantFrom(
    "",
    ": ping",
    "event: message_delta",
    "data: [DONE]",
    'data: "usage" but no JSON',
    'data: {"choices":[{"delta":{"content":"é€😀"}}]}',
    ' data: {"usage":{"prompt_tokens":9,"prompt_tokens_details":{"cached_tokens":9}}}',
  ),
  fc
    .tuple(fc.integer({ min: 100, max: 4000 }), tokens)
    .map(
      ([length, prompt]) =>
        `data: {"pad":"${"é".repeat(length)}","usage":{"prompt_tokens":${prompt},"prompt_tokens_details":{"cached_tokens":1}}}`,
    ),
);
const lineEnd = fc.constantFrom("\n", "\r", "\r\n");
const stream = fc
  .tuple(fc.array(fc.tuple(usageLine, lineEnd), { maxLength: 20 }), usageLine)
  .map(([lines, last]) => lines.map(([line, end]) => line + end).join("") + last);
const format = fc.constantFrom<UsageReading>(...SHAPES.map((shape) => shape.usage));

/** Where a data line's JSON opens: its padding follows. */
const opening = 'data: {"pad":"';
/** Where a data line opened with `opening` closes, with a usage of `tokens` prompt tokens. */
const closing = (tokens: number) =>
  `","usage":{"prompt_tokens":${tokens},"prompt_tokens_details":{"cached_tokens":1}}}\n`;
/** A whole data line with a usage of `tokens` prompt tokens. */
const usage = (tokens: number) => opening + closing(tokens);
/** A data line opened and padded to `length` characters. */
const open = (length: number) => opening + "x".repeat(length - opening.length);

describe("tapUsage on any chunking", () => {
  it("reports the usage the reader that searched its whole line again reported", async () => {
    await fc.assert(
      fc.asyncProperty(
        stream,
        format,
        fc.array(fc.nat(), { maxLength: 40 }),
        async (text, kind, cuts) => {
          const chunks = cutAt(new TextEncoder().encode(text), cuts);
          const { tapped, reference } = await tappedAndReference(chunks, kind);
          expect(tapped).toEqual(reference);
        },
      ),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("drops a line past the bound where the reference dropped it, and reads what follows", async () => {
    // Chunks of lines about the bound long, some a character short of it or past it, cut where
    // the bound is reached or a line's rest starts: a data line read whole or dropped, the tail of
    // a dropped line read as a line.
    const count = fc.integer({ min: 1, max: 999 });
    const off = fc.integer({ min: -2, max: 2 });
    const piece = fc.oneof(
      count.map(usage),
      off.map((by) => open(MAX_LINE_CHARS + by)),
      fc.integer({ min: 1, max: 3 }).map((length) => "x".repeat(length)),
      count.map(closing),
      off.map((by) => "x".repeat(MAX_LINE_CHARS + by)),
      lineEnd,
    );
    const chunk = fc.array(piece, { minLength: 1, maxLength: 2 }).map((pieces) => pieces.join(""));
    const encoder = new TextEncoder();
    await fc.assert(
      fc.asyncProperty(fc.array(chunk, { minLength: 1, maxLength: 6 }), async (texts) => {
        const { tapped, reference } = await tappedAndReference(
          texts.map((text) => encoder.encode(text)),
          openaiChat.usage,
        );
        expect(tapped).toEqual(reference);
      }),
      { numRuns: Math.ceil(PROPERTY_RUNS / 10) },
    );
  });

  it.each([
    ["a data line as long as the bound is read", [open(MAX_LINE_CHARS), closing(1)], 1],
    ["a data line past the bound is dropped", [usage(1), open(MAX_LINE_CHARS + 1), closing(2)], 1],
    [
      "the rest of a chunk after a line end counts toward the bound",
      [usage(1) + open(MAX_LINE_CHARS), "x", closing(2)],
      1,
    ],
    ["the tail of a dropped line is read as a line", ["x".repeat(MAX_LINE_CHARS + 1), usage(3)], 3],
    [
      "a line after a dropped one is held from its start",
      ["x".repeat(MAX_LINE_CHARS + 1), opening, closing(4)],
      4,
    ],
  ])("%s, in these chunks, as the reference reads it", async (_name, texts, tokens) => {
    const encoder = new TextEncoder();
    const chunks = texts.map((text) => encoder.encode(text));
    const served = [{ cachedTokens: 1, inputTokens: tokens }];
    expect(await tappedAndReference(chunks, openaiChat.usage)).toEqual({
      tapped: served,
      reference: served,
    });
  });

  // Joined to all the line held before it and searched again, each chunk took time quadratic in
  // the line: about a minute for this stream.
  it("relays an 8 MB data line in 256-byte chunks and reads the usage after it", async () => {
    const encoder = new TextEncoder();
    const piece = encoder.encode("x".repeat(256));
    const chunks = [encoder.encode("data: ")];
    for (let at = 0; at < 8 * 1024 * 1024; at += piece.length) chunks.push(piece);
    chunks.push(
      encoder.encode(
        '\n\ndata: {"usage":{"prompt_tokens":1000,"prompt_tokens_details":{"cached_tokens":700}}}\n\n',
      ),
    );
    const served: (ServedUsage | undefined)[] = [];
    const relayed = await new Response(
      tapUsage(streamOf(chunks), openaiChat.usage, (usage) => served.push(usage)),
    ).arrayBuffer();
    expect({ bytes: relayed.byteLength, served }).toEqual({
      bytes: chunks.reduce((sum, chunk) => sum + chunk.length, 0),
      served: [{ cachedTokens: 700, inputTokens: 1000 }],
    });
  });
});
