import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Store } from "../../src/store/types.js";
import { learnedLifetimes, openaiTurns, type Served, servedReply } from "../support/cache-usage.js";
import { type Harness, openaiClient, startHarness } from "../support/proxy-harness.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { redisSuiteSkipped } from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis observed-cache tests");

const T0 = 1_800_000_000_000;
const SECOND = 1000;

describe.skipIf(skipped)("observed cache state across two instances on one Redis", () => {
  let server: RedisServer;
  let a: Harness;
  let b: Harness;
  const clock = { now: T0 };
  let served: Served = { cached: 0, prompt: 4000 };

  beforeAll(async () => {
    server = await startRedisServer();
    const overrides = { store: { backend: "redis" as const, redis: { url: server.url } } };
    [a, b] = await Promise.all([
      startHarness(overrides, { clock: () => clock.now }),
      startHarness(overrides, { clock: () => clock.now }),
    ]);
    for (const harness of [a, b]) {
      harness.upstream.script(() => servedReply("openai", true, served));
      await vi.waitFor(
        async () => {
          if (!(await harness.store.ready())) throw new Error("Redis not ready");
        },
        { timeout: 10_000, interval: 20 },
      );
    }
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await server?.close();
  });

  /** One streamed request on `harness`: what it was treated as, and why. */
  async function send(harness: Harness, turns: number, session: string): Promise<string> {
    const { data, response } = await openaiClient(harness)
      .chat.completions.create(
        { ...openaiTurns(turns), stream: true, stream_options: { include_usage: true } },
        { headers: { "x-context-guru-session": session } },
      )
      .withResponse();
    for await (const _chunk of data);
    const { headers } = response;
    return `${headers.get("x-context-guru-cache")} ${headers.get("x-context-guru-cache-reason")}`;
  }

  async function observedAt(store: Store, session: string, at: number): Promise<void> {
    await vi.waitFor(
      async () => {
        if ((await store.ledger(session)).observed?.at !== at) throw new Error("not yet");
      },
      { timeout: 10_000, interval: 5 },
    );
  }

  it("a miss observed on one instance makes the next idle of that length cold on the other", async () => {
    served = { cached: 0, prompt: 4000 };
    clock.now = T0;
    const first = await send(a, 0, "shared");
    await observedAt(a.store, "shared", T0);

    clock.now = T0 + 120 * SECOND;
    served = { cached: 0, prompt: 4400 };
    const second = await send(b, 1, "shared");
    await observedAt(b.store, "shared", clock.now);

    clock.now = T0 + 240 * SECOND;
    const third = await send(a, 2, "shared");
    await observedAt(a.store, "shared", clock.now);
    const [onA, onB] = await Promise.all([
      learnedLifetimes(a.store, "shared"),
      learnedLifetimes(b.store, "shared"),
    ]);
    const { observed } = await a.store.ledger("shared");

    // The deployment's lifetime, moved by that miss, decides a session with no evidence of its
    // own: an idle of 260 s, within the TTL, is cold on the instance that did not see the miss.
    clock.now = T0 + 300 * SECOND;
    const fresh = await send(b, 0, "fresh");
    await observedAt(b.store, "fresh", clock.now);
    clock.now = T0 + 560 * SECOND;
    const afterIdle = await send(a, 1, "fresh");

    expect({
      treated: [first, second, third, fresh, afterIdle],
      learned: [onA, onB],
      observed,
    }).toEqual({
      treated: ["warm unknown", "warm recent", "cold observed", "warm unknown", "cold observed"],
      learned: [
        { session: 108 * SECOND, deployment: 252 * SECOND },
        { session: 108 * SECOND, deployment: 252 * SECOND },
      ],
      // Treated cold, nothing cached: what was expected, so the lifetime stays where it is.
      observed: {
        at: T0 + 240 * SECOND,
        idleMs: 120 * SECOND,
        predicted: "miss",
        observed: "miss",
        cachedTokens: 0,
        inputTokens: 4400,
      },
    });
  });
});
