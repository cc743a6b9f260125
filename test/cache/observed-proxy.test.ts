import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app.js";
import type { CacheObservation } from "../../src/cache/observation.js";
import { configSchema } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { sample } from "../observability/prometheus-text.js";
import {
  anthropicTurns,
  learnedLifetimes,
  openaiTurns,
  responsesTurns,
  type Served,
  servedReply,
  type UsageProvider,
} from "../support/cache-usage.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";
import { expandCall } from "../support/model-replies.js";
import {
  anthropicClient,
  type Harness,
  MASKED_ID,
  openaiClient,
  startHarness,
} from "../support/proxy-harness.js";
import { ScriptedUpstream } from "../support/scripted-upstream.js";

const T0 = 1_800_000_000_000;
const SECOND = 1000;

/** One request through the official client; the response headers once the body was read whole. */
async function send(
  harness: Harness,
  provider: UsageProvider,
  streaming: boolean,
  turns: number,
  session: string,
  cache?: "cold",
): Promise<Headers> {
  const options = {
    headers: {
      "x-context-guru-session": session,
      ...(cache ? { "x-context-guru-cache": cache } : {}),
    },
  };
  const { data, response } = await create(harness, provider, streaming, turns, options);
  // A stream is read to its end: its usage arrives last.
  if (streaming) for await (const _event of data as AsyncIterable<unknown>);
  return response.headers;
}

/** The harness conversation after `turns` exchanges, sent with the provider's official client. */
function create(
  harness: Harness,
  provider: UsageProvider,
  stream: boolean,
  turns: number,
  options: { headers: Record<string, string> },
): Promise<{ data: unknown; response: Response }> {
  if (provider === "responses") {
    const body = { ...responsesTurns(turns), stream };
    return openaiClient(harness).responses.create(body, options).withResponse();
  }
  if (provider === "openai") {
    const usage = stream ? { stream_options: { include_usage: true } } : {};
    const body = { ...openaiTurns(turns), stream, ...usage };
    return openaiClient(harness).chat.completions.create(body, options).withResponse();
  }
  const body = { ...anthropicTurns(turns), stream };
  return anthropicClient(harness).messages.create(body, options).withResponse();
}

/** The session's latest observation once the one for the request at `at` is recorded. */
async function observedAt(store: Store, session: string, at: number): Promise<CacheObservation> {
  return vi.waitFor(
    async () => {
      const { observed } = await store.ledger(session);
      if (observed?.at !== at) throw new Error(`no observation at ${at} yet`);
      return observed;
    },
    { timeout: 10_000, interval: 5 },
  );
}

const cases = (["openai", "anthropic", "responses"] as const).flatMap((provider) =>
  [false, true].map((streaming) => ({ provider, streaming })),
);

describe("observed cache state on the proxy routes", () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** A harness on a clock the test moves, answering each request with `served()`. */
  async function start(provider: UsageProvider, streaming: boolean, served: () => Served) {
    const clock = { now: T0 };
    const started = await startHarness({}, { clock: () => clock.now });
    started.upstream.script(() => servedReply(provider, streaming, served()));
    harness = started;
    return { harness: started, clock };
  }

  it.each(cases)(
    "a miss after a short idle shortens the lifetime and that idle is then cold ($provider, stream $streaming)",
    async ({ provider, streaming }) => {
      let served: Served = { cached: 0, prompt: 4000 };
      const { harness, clock } = await start(provider, streaming, () => served);
      const session = `short-${provider}-${streaming}`;
      const cache = (headers: Headers) => [
        headers.get("x-context-guru-cache"),
        headers.get("x-context-guru-cache-reason"),
      ];

      const first = await send(harness, provider, streaming, 0, session);
      const firstSeen = await observedAt(harness.store, session, T0);

      clock.now = T0 + 120 * SECOND;
      served = { cached: 0, prompt: 4400 };
      const second = await send(harness, provider, streaming, 1, session);
      const secondSeen = await observedAt(harness.store, session, clock.now);
      const learned = await learnedLifetimes(harness.store, session);

      clock.now = T0 + 240 * SECOND;
      served = { cached: 4400, prompt: 4800 };
      const third = await send(harness, provider, streaming, 2, session);

      expect({
        headers: [cache(first), cache(second), cache(third)],
        observations: [firstSeen, secondSeen],
        learned,
      }).toEqual({
        headers: [
          ["warm", "unknown"],
          ["warm", "recent"],
          ["cold", "observed"],
        ],
        observations: [
          {
            at: T0,
            idleMs: undefined,
            predicted: "miss",
            observed: "miss",
            cachedTokens: 0,
            inputTokens: 4000,
          },
          {
            at: T0 + 120 * SECOND,
            idleMs: 120 * SECOND,
            predicted: "hit",
            observed: "miss",
            cachedTokens: 0,
            inputTokens: 4400,
          },
        ],
        // 0.9 of the idle that missed; the deployment a quarter of the way from 300 s.
        learned: { session: 108 * SECOND, deployment: 252 * SECOND },
      });
      const metrics = await (await harness.app.request("/metrics")).text();
      expect([
        sample(metrics, "cg_cache_observed_total", { predicted: "hit", observed: "miss" }),
        sample(metrics, "cg_cache_lifetime_steps_total", { step: "shorten" }),
        sample(metrics, "cg_cache_learned_lifetime_seconds"),
        sample(metrics, "cg_cache_requests_total", { state: "cold", reason: "observed" }),
      ]).toEqual([1, 1, 252, 1]);
    },
  );

  it.each(cases)(
    "a hit after a long idle lengthens the lifetime and that idle is then warm ($provider, stream $streaming)",
    async ({ provider, streaming }) => {
      let served: Served = { cached: 0, prompt: 4000 };
      const { harness, clock } = await start(provider, streaming, () => served);
      const session = `long-${provider}-${streaming}`;
      const reason = (headers: Headers) =>
        `${headers.get("x-context-guru-cache")} ${headers.get("x-context-guru-cache-reason")}`;

      await send(harness, provider, streaming, 0, session);
      await observedAt(harness.store, session, T0);

      clock.now = T0 + 400 * SECOND;
      served = { cached: 3600, prompt: 4400 };
      const late = await send(harness, provider, streaming, 1, session);
      const seen = await observedAt(harness.store, session, clock.now);
      const learned = await learnedLifetimes(harness.store, session);

      clock.now = T0 + 850 * SECOND;
      const next = await send(harness, provider, streaming, 2, session);

      expect({
        headers: [reason(late), reason(next)],
        seen: [seen.predicted, seen.observed, seen.idleMs],
        learned,
      }).toEqual({
        headers: ["cold ttl", "warm observed"],
        seen: ["miss", "hit", 400 * SECOND],
        // 1.25 times the idle that hit; the deployment a quarter of the way from 300 s.
        learned: { session: 500 * SECOND, deployment: 350 * SECOND },
      });
    },
  );

  it.each([
    ["openai", "/v1/chat/completions", openaiTurns(0)],
    ["anthropic", "/v1/messages", anthropicTurns(0)],
    ["responses", "/v1/responses", responsesTurns(0)],
  ] as const)(
    "a %s stream reaches the client byte for byte while its usage is read",
    async (provider, path, turns) => {
      const { harness } = await start(provider, true, () => ({ cached: 640, prompt: 4000 }));
      const body = JSON.stringify({ ...turns, stream: true });
      const post = (base: string) =>
        fetch(`${base}${path}`, {
          method: "POST",
          body,
          headers: { "content-type": "application/json", "x-context-guru-session": "bytes" },
        }).then((response) => response.text());
      const direct = await post(
        `http://127.0.0.1:${harness.upstream.port}${provider === "anthropic" ? "" : "/v1"}`,
      );
      const proxied = await post(`http://127.0.0.1:${harness.port}`);
      const seen = await observedAt(harness.store, "bytes", T0);
      expect({
        same: proxied === direct,
        cached: seen.cachedTokens,
        length: proxied.length,
      }).toEqual({ same: true, cached: 640, length: direct.length });
    },
  );

  it.each(cases)(
    "through the expand loop, the first round's usage is observed ($provider, stream $streaming)",
    async ({ provider, streaming }) => {
      const { harness } = await start(provider, streaming, () => ({ cached: 0, prompt: 0 }));
      harness.upstream.script((_, index) =>
        index === 0
          ? servedReply(provider, streaming, { cached: 0, prompt: 4000 }, [expandCall(MASKED_ID)])
          : servedReply(provider, streaming, { cached: 4000, prompt: 4600 }),
      );
      await send(harness, provider, streaming, 0, "looped", "cold");
      const seen = await observedAt(harness.store, "looped", T0);
      expect({
        rounds: harness.events.rounds,
        resolved: harness.events.resolved,
        seen: [seen.cachedTokens, seen.inputTokens, seen.predicted],
      }).toEqual({ rounds: 1, resolved: 1, seen: [0, 4000, "miss"] });
    },
  );

  it("a response without usage teaches nothing and is counted", async () => {
    const { harness, clock } = await start("openai", false, () => ({ cached: 0, prompt: 4000 }));
    harness.upstream.script(() => ({ json: { id: "x", object: "chat.completion", choices: [] } }));
    await send(harness, "openai", false, 0, "no-usage");
    clock.now = T0 + 120 * SECOND;
    await send(harness, "openai", false, 1, "no-usage");
    const read = async () =>
      sample(
        await (await harness.app.request("/metrics")).text(),
        "cg_cache_usage_unreported_total",
        {
          format: "chat",
        },
      );
    await vi.waitFor(async () => expect(await read()).toBe(2), { timeout: 10_000, interval: 5 });
    const ledger = await harness.store.ledger("no-usage");
    expect([ledger.observed, ledger.learned]).toEqual([undefined, undefined]);
  });
});

describe("a store that cannot record the observation", () => {
  it("still answers, and counts the failed write", async () => {
    const upstream = await ScriptedUpstream.start();
    try {
      upstream.script(() => servedReply("openai", false, { cached: 0, prompt: 4000 }));
      const config = configSchema.parse({
        pipeline: ["mask"],
        upstream: { openai: { base_url: `http://127.0.0.1:${upstream.port}/v1` } },
      });
      const memory = createStore(config.store);
      const attempts: string[] = [];
      const store: Store = {
        backend: memory.backend,
        persists: memory.persists,
        put: (session, entries, options) => memory.put(session, entries, options),
        get: (session, key) => memory.get(session, key),
        ledger: (session) => memory.ledger(session),
        keep: (session, ids) => memory.keep(session, ids),
        observe: async (session) => {
          attempts.push(session);
          throw new Error("store down");
        },
        sharedNumber: (name) => memory.sharedNumber(name),
        swapSharedNumber: (name, expected, next, ttlMs) =>
          memory.swapSharedNumber(name, expected, next, ttlMs),
        ready: () => memory.ready(),
        stats: () => memory.stats(),
        close: () => memory.close(),
      };
      const app = createApp({ config, store, hashKey: TEST_HASH_KEY });
      const response = await app.request("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify(openaiTurns(0)),
        headers: { "content-type": "application/json", "x-context-guru-session": "down" },
      });
      const body = (await response.json()) as { choices: unknown[] };
      await vi.waitFor(() => expect(attempts).toEqual(["down"]), { timeout: 10_000, interval: 5 });
      const metrics = await (await app.request("/metrics")).text();
      expect([
        response.status,
        body.choices.length,
        sample(metrics, "cg_store_errors_total", { operation: "observe" }),
      ]).toEqual([200, 1, 1]);
    } finally {
      await upstream.close();
    }
  });
});
