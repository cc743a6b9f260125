import { describe, expect, it } from "vitest";
import { type ServedUsage, servedHit } from "../../src/cache/usage.js";
import { tapUsage } from "../../src/cache/usage-tap.js";
import { wireShape } from "../../src/wire/registry.js";
import type { Provider } from "../../src/wire/types.js";
import { servedReply } from "../support/cache-usage.js";
import { sseText } from "../support/scripted-upstream.js";

describe("each shape's usage.served", () => {
  it.each([
    {
      name: "chat with cached tokens",
      shape: "openai",
      usage: { prompt_tokens: 1200, prompt_tokens_details: { cached_tokens: 1024 } },
      served: { cachedTokens: 1024, inputTokens: 1200 },
    },
    {
      name: "chat without details (vLLM without --enable-prompt-tokens-details): unreported",
      shape: "openai",
      usage: { prompt_tokens: 90, completion_tokens: 3 },
      served: undefined,
    },
    {
      name: "chat with null details: unreported",
      shape: "openai",
      usage: { prompt_tokens: 90, prompt_tokens_details: null },
      served: undefined,
    },
    {
      name: "chat with nothing cached",
      shape: "openai",
      usage: { prompt_tokens: 90, prompt_tokens_details: { cached_tokens: 0 } },
      served: { cachedTokens: 0, inputTokens: 90 },
    },
    {
      name: "anthropic: input_tokens are the uncached ones",
      shape: "anthropic",
      usage: { input_tokens: 20, cache_read_input_tokens: 900, cache_creation_input_tokens: 80 },
      served: { cachedTokens: 900, inputTokens: 1000 },
    },
    {
      name: "anthropic without cache fields: unreported",
      shape: "anthropic",
      usage: { input_tokens: 20, output_tokens: 4 },
      served: undefined,
    },
    {
      name: "anthropic with nothing cached, creation null",
      shape: "anthropic",
      usage: { input_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: null },
      served: { cachedTokens: 0, inputTokens: 20 },
    },
    {
      name: "responses",
      shape: "responses",
      usage: { input_tokens: 500, input_tokens_details: { cached_tokens: 384 } },
      served: { cachedTokens: 384, inputTokens: 500 },
    },
    {
      name: "no prompt count",
      shape: "openai",
      usage: { completion_tokens: 3 },
      served: undefined,
    },
    { name: "not an object", shape: "anthropic", usage: "x", served: undefined },
  ] as const)("$name", ({ shape, usage, served }) => {
    expect(wireShape(shape).usage.served(usage)).toEqual(served);
  });
});

describe("servedHit", () => {
  it.each([
    { served: { cachedTokens: 500, inputTokens: 1100 }, previous: 1000, hit: true },
    { served: { cachedTokens: 499, inputTokens: 1100 }, previous: 1000, hit: false },
    { served: { cachedTokens: 600, inputTokens: 1100 }, previous: undefined, hit: true },
    { served: { cachedTokens: 500, inputTokens: 1100 }, previous: undefined, hit: false },
    // A shorter prompt than the previous one (a retry of an earlier turn): judged on itself.
    { served: { cachedTokens: 300, inputTokens: 500 }, previous: 1000, hit: true },
    { served: { cachedTokens: 0, inputTokens: 0 }, previous: undefined, hit: false },
  ])(
    "$served.cachedTokens of $served.inputTokens after $previous: $hit",
    ({ served, previous, hit }) => {
      expect(servedHit(served, previous)).toBe(hit);
    },
  );
});

/** `text` as a stream of chunks of `size` bytes. */
function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function readTapped(
  text: string,
  shape: Provider,
  size: number,
): Promise<{ text: string; served: (ServedUsage | undefined)[] }> {
  const served: (ServedUsage | undefined)[] = [];
  const usage = wireShape(shape).usage;
  const tapped = tapUsage(chunked(text, size), usage, (reported) => served.push(reported));
  if (!(tapped instanceof ReadableStream)) throw new Error("expected a stream");
  return { text: await new Response(tapped).text(), served };
}

describe("tapUsage", () => {
  const streams = [
    { shape: "openai", reply: servedReply("openai", true, { cached: 700, prompt: 1000 }) },
    { shape: "anthropic", reply: servedReply("anthropic", true, { cached: 700, prompt: 1000 }) },
  ] as const;

  it.each(streams.flatMap((stream) => [1, 7, 64, 100_000].map((size) => ({ ...stream, size }))))(
    "$shape stream in chunks of $size bytes: same bytes, usage read once",
    async ({ shape, reply, size }) => {
      const text = (reply.sse ?? []).map(sseText).join("");
      expect(await readTapped(text, shape, size)).toEqual({
        text,
        served: [{ cachedTokens: 700, inputTokens: 1000 }],
      });
    },
  );

  it("reads a JSON body given as a stream, and a text after it was handed on", async () => {
    const reply = servedReply("openai", false, { cached: 10, prompt: 40 });
    const json = JSON.stringify(reply.json);
    const fromStream = await readTapped(json, "openai", 5);
    const served: (ServedUsage | undefined)[] = [];
    const text = tapUsage(json, wireShape("openai").usage, (usage) => served.push(usage));
    const before = [...served];
    await new Promise((resolve) => setImmediate(resolve));
    expect({ fromStream, text, before, served }).toEqual({
      fromStream: { text: json, served: [{ cachedTokens: 10, inputTokens: 40 }] },
      text: json,
      before: [],
      served: [{ cachedTokens: 10, inputTokens: 40 }],
    });
  });

  it("reports nothing for a stream that breaks off", async () => {
    const served: unknown[] = [];
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new Error("reset"));
        else
          controller.enqueue(new TextEncoder().encode('data: {"usage":{"prompt_tokens":5}}\n\n'));
        sent = true;
      },
    });
    const tapped = tapUsage(broken, wireShape("openai").usage, (usage) => served.push(usage));
    await expect(new Response(tapped as ReadableStream).text()).rejects.toThrow("reset");
    expect(served).toEqual([]);
  });
});
