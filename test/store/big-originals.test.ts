import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfigInput } from "../../src/config/schema.js";
import { markerIds } from "../../src/expand/markers.js";
import { pieceKey } from "../../src/store/pieces.js";
import { CLEAN, MASK_BY_AGE, testApp } from "../support/app.js";
import { findRedisServer, type RedisServer, startRedisServer } from "../support/redis-server.js";

/**
 * Nothing lost whatever the size (§1): an original larger than one store entry is kept in
 * pieces and comes back whole; one the store cannot take is cut one-way with a visible note.
 */
const MB = 1_000_000;
const TOOLS = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];

/** A build log of about `bytes` bytes, every line distinct. */
function buildLog(bytes: number, tag: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    const text = `[${tag}] cc -O2 -c src/module-${line % 9973}.c -o build/module-${line}.o (${line % 97} ms)`;
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join("\n");
}

/** An OpenAI body: one huge `make` output among three ordinary ones, the newest last. */
function bigBody(hugeBytes: number, extra: Record<string, unknown> = { tools: TOOLS }): string {
  const outputs = [buildLog(4_000, "a"), buildLog(hugeBytes, "make"), buildLog(4_000, "b")];
  const messages: unknown[] = [{ role: "user", content: "Fix the build." }];
  outputs.forEach((content, index) => {
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `c${index}`,
            type: "function",
            function: { name: "Bash", arguments: '{"command":"make"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: `c${index}`, content },
    );
  });
  messages.push({ role: "user", content: "Go on." });
  return JSON.stringify({ model: "gpt-4o", messages, ...extra });
}

const HEADERS = { "x-context-guru-session": "big", "x-context-guru-cache": "cold" };
/** A deadline no loaded machine reaches: these tests are about what is kept, not how fast. */
const SLOW: ConfigInput = { limits: { compact_timeout_ms: 600_000 } };

async function roundTrip(input: string, config: ConfigInput) {
  const { app, store } = testApp({ ...SLOW, ...config });
  const compacted = await app.request("/compact", {
    method: "POST",
    body: input,
    headers: HEADERS,
  });
  expect(compacted.status).toBe(200);
  const output = await compacted.text();
  const back = await app.request("/rehydrate", { method: "POST", body: output, headers: HEADERS });
  expect(back.status).toBe(200);
  return { output, back: await back.text(), store, app };
}

const input9 = bigBody(9 * MB);

describe("an original larger than one store entry", () => {
  it("is stashed in pieces in memory and rehydrates byte for byte", async () => {
    const { output, back, store, app } = await roundTrip(input9, {});
    // Reduced to a marker, not sent on verbatim.
    expect(output.length).toBeLessThan(input9.length / 20);
    const ids = markerIds(output);
    expect(ids.length).toBeGreaterThan(0);
    expect(back).toBe(input9);
    const huge = (JSON.parse(input9).messages[4] as { content: string }).content;
    const resolved = await Promise.all(ids.map((id) => store.get("big", id)));
    expect(resolved.filter((value) => value === huge)).toHaveLength(1);
    const pieced = ids[resolved.indexOf(huge)] as string;
    // Two pieces under the default 8 MiB entry bound; without one, the original is a miss.
    expect(await store.get("big", pieceKey(pieced, 1, 2))).toBe(huge.slice(8 * 1024 * 1024));
    const expanded = await app.request(`/expand?id=${pieced}`, { headers: HEADERS });
    expect(expanded.status).toBe(200);
    expect(await expanded.text()).toBe(huge);
    const metrics = await (await app.request("/metrics")).text();
    expect(metrics).toContain("cg_stash_pieced_total 1");
  }, 120_000);
});

const redisBinary = findRedisServer();
describe.skipIf(redisBinary === undefined && process.env.CI !== "true")(
  "an original larger than one entry on a real redis-server",
  () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      await server?.close();
    });

    it("is stashed in pieces and rehydrates byte for byte", async () => {
      const { back, output, store } = await roundTrip(input9, {
        store: { backend: "redis", redis: { url: server.url }, timeout_ms: 60_000 },
      });
      try {
        expect(output.length).toBeLessThan(input9.length / 20);
        expect(back).toBe(input9);
      } finally {
        await store.close();
      }
    }, 120_000);
  },
);

describe("markers that acted as off", () => {
  it("a tool-less body still rehydrates byte for byte and carries no marker", async () => {
    const input = bigBody(200_000, {});
    const { output, back } = await roundTrip(input, {});
    expect(output.length).toBeLessThan(input.length / 4);
    expect(output).not.toContain("<<cg:");
    expect(markerIds(output)).toEqual([]);
    expect(back).toBe(input);
  }, 60_000);

  it("reduces as much as clean mode when older outputs mask to the same text", async () => {
    const outputs = Array.from({ length: 12 }, (_, index) => buildLog(3_000, `s${index}`));
    const messages: unknown[] = [{ role: "user", content: "Fix the build." }];
    outputs.forEach((content, index) => {
      messages.push(
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: `c${index}`, type: "function", function: { name: "Bash", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: `c${index}`, content },
      );
    });
    const input = JSON.stringify({ model: "gpt-4o", messages });
    const { output, back } = await roundTrip(input, {});
    const clean = await testApp({ ...SLOW, ...CLEAN }).app.request("/compact", {
      method: "POST",
      body: input,
      headers: HEADERS,
    });
    expect(output).toBe(await clean.text());
    expect(output.length).toBeLessThan(input.length / 2);
    expect(back).toBe(input);
  }, 60_000);
});

describe("an output over an eighth of the store but within the body limit", () => {
  it("is kept whole by default and rehydrates byte for byte", async () => {
    // As k8s/base against a 24 MB log, scaled down: a 1 MB output, a store of 4 MiB (an eighth:
    // 512 KiB) and a body limit of 2 MiB. A session's default share is the body limit.
    const input = bigBody(MB);
    const { output, back } = await roundTrip(input, {
      store: { max_bytes: 4 * 1024 * 1024, max_entry_bytes: 256 * 1024 },
      limits: { ...SLOW.limits, body_bytes: 2 * 1024 * 1024 },
    });
    expect(output.length).toBeLessThan(input.length / 20);
    expect(output).not.toContain("the original could not be kept");
    expect(markerIds(output).length).toBeGreaterThan(0);
    expect(back).toBe(input);
  }, 60_000);
});

describe("originals the store cannot take", () => {
  /**
   * `input` compacted where one session may hold 1 MiB, in entries of at most 512 KiB, mask
   * keeping the newest three outputs (the huge one among them).
   */
  async function underQuota(input: string) {
    const { app } = testApp({
      ...SLOW,
      ...MASK_BY_AGE,
      store: { max_session_bytes: 1024 * 1024, max_entry_bytes: 512 * 1024 },
    });
    const compacted = await app.request("/compact", {
      method: "POST",
      body: input,
      headers: HEADERS,
    });
    expect(compacted.status).toBe(200);
    const metrics = async () => (await app.request("/metrics")).text();
    return { compacted, output: await compacted.text(), metrics };
  }

  it("a huge output over the session quota is reduced one-way, its drop marked", async () => {
    // The 3 MB output's original cannot be kept.
    const { output, metrics } = await underQuota(bigBody(3 * MB));
    expect(output.length).toBeLessThan(40_000);
    const huge = JSON.parse(output).messages[4].content as string;
    // The collapse as in clean mode, its note marked by the sentinel of a drop nothing keeps.
    expect(huge).toMatch(/\n… \(\d+ lines omitted\) ⟪cg⟫\n/);
    expect(huge.startsWith("[make] cc -O2 -c src/module-0.c")).toBe(true);
    expect(markerIds(output)).toEqual([]);
    expect(await metrics()).toMatch(/cg_one_way_reductions_total\{reason="capacity"\} [1-9]/);
  }, 60_000);

  it("many outputs whose originals together pass the session quota are reduced one-way", async () => {
    // Forty logs of 40 kB, none larger than one entry, 1.6 MB together against a share of
    // 1 MiB: the put of their originals fails as a whole. They used to go on unreduced.
    const messages: unknown[] = [{ role: "user", content: "Fix the build." }];
    for (let index = 0; index < 40; index++) {
      messages.push(
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: `c${index}`, type: "function", function: { name: "Bash", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: `c${index}`, content: buildLog(40_000, `step ${index}`) },
      );
    }
    const input = JSON.stringify({ model: "gpt-4o", messages, tools: TOOLS });
    const { compacted, output, metrics } = await underQuota(input);
    expect(output.length).toBeLessThan(input.length / 10);
    expect(output).toContain("⟪cg⟫");
    expect(markerIds(output)).toEqual([]);
    const reduced = Number(compacted.headers.get("x-context-guru-tokens-after"));
    expect(reduced).toBeLessThan(
      Number(compacted.headers.get("x-context-guru-tokens-before")) / 10,
    );
    expect(await metrics()).toMatch(/cg_one_way_reductions_total\{reason="capacity"\} [1-9]\d/);
  }, 60_000);
});
