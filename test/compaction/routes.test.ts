import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { largeLogBody, tinyMessagesBody } from "../../bench/large-bodies.js";
import { createApp } from "../../src/app.js";
import { WorkerPool } from "../../src/compaction/worker-pool.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { createStore } from "../../src/store/create.js";
import { sample } from "../observability/prometheus-text.js";
import { COLD, postCompact, testApp } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";
import { openaiConversation } from "../support/proxy-harness.js";
import { recordingStore } from "../support/recording-store.js";
import { ScriptedUpstream } from "../support/scripted-upstream.js";

/**
 * §10 "one request never stalls the others", through the routes: large bodies compact on a
 * worker thread while the event loop answers, the deadline holds whatever the worker does, and
 * bodies beyond the bytes in flight get their answer at once.
 */
const jobs = async (app: ReturnType<typeof createApp>, labels: Record<string, string>) =>
  sample(await (await app.request("/metrics")).text(), "cg_compaction_jobs_total", labels) ?? 0;

describe("/compact off the event loop", { timeout: 120_000 }, () => {
  it("answers /livez while a large body compacts, and the body still compacts", async () => {
    const { app } = testApp({ limits: { compact_timeout_ms: 60_000 } });
    const large = largeLogBody(8 * 1024 * 1024);
    const order: string[] = [];
    const compacting = postCompact(app, large).then(async (response) => {
      order.push("compact");
      return response;
    });
    for (let probe = 0; probe < 3; probe++) {
      await new Promise((done) => setTimeout(done, 20));
      const live = await app.request("/livez");
      expect(live.status).toBe(200);
      order.push("livez");
    }
    const response = await compacting;

    expect(order).toEqual(["livez", "livez", "livez", "compact"]);
    expect(response.headers.get("x-context-guru-tokens-before")).not.toBeNull();
    expect(await jobs(app, { job: "compact", thread: "worker", end: "completed" })).toBe(1);
  });

  it("answers the original bytes at compact_timeout_ms while the worker is still busy", async () => {
    const { app } = testApp({ limits: { compact_timeout_ms: 300 } });
    const large = largeLogBody(16 * 1024 * 1024);
    const started = performance.now();

    const response = await postCompact(app, large);

    // Compacting this body takes several seconds; the answer comes at the deadline.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-context-guru-tokens-before")).toBeNull();
    expect(await response.text()).toBe(large);
    expect(await jobs(app, { job: "compact", thread: "worker", end: "deadline" })).toBe(1);
  });

  it("never lets a compaction answered at its deadline reach the store afterwards", async () => {
    const config = parseConfig({ limits: { compact_timeout_ms: 1_000 } });
    // Every store call takes three seconds: the deadline passes while the first one is pending.
    const { store, calls } = recordingStore(createStore(config.store), 3_000);
    const pool = new WorkerPool({ size: 1, setup: { config, hashKey: TEST_HASH_KEY }, store });
    await pool.warm();
    const app = createApp({ config, store, pool });
    const body = openaiBody(Array.from({ length: 8 }, (_, index) => logOutput(1500, `o${index}`)));
    expect(body.length).toBeGreaterThan(config.limits.worker_min_bytes);

    const response = await postCompact(app, body, { headers: { "x-context-guru-session": "d1" } });
    const answered = performance.now();
    await new Promise((done) => setTimeout(done, 4_000));

    expect(await response.text()).toBe(body);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter(({ at }) => at > answered)).toEqual([]);
    await pool.close();
  });
});

describe("admission by bytes in flight", { timeout: 120_000 }, () => {
  it("answers a body beyond limits.inflight_bytes with its original bytes at once", async () => {
    const { app } = testApp({ limits: { inflight_bytes: 1024 * 1024 } });
    const large = largeLogBody(2 * 1024 * 1024);

    const response = await postCompact(app, large);

    expect(response.status).toBe(200);
    expect(await response.text()).toBe(large);
    expect(await jobs(app, { job: "compact", thread: "worker", end: "declined" })).toBe(1);
  });

  it("of two bodies that do not fit together, compacts one and sends the other back", async () => {
    const { app } = testApp({
      limits: { inflight_bytes: 1024 * 1024, compact_timeout_ms: 60_000 },
    });
    const bodies = [largeLogBody(700 * 1024), largeLogBody(700 * 1024).replace("gpt-4o", "gpt-4")];

    const responses = await Promise.all(
      bodies.map((body) => postCompact(app, body, { headers: COLD })),
    );

    const compacted = responses.filter((r) => r.headers.get("x-context-guru-tokens-before"));
    expect(compacted).toHaveLength(1);
    const texts = await Promise.all(responses.map((response) => response.text()));
    expect(texts.filter((text, index) => text === bodies[index])).toHaveLength(1);
  });
});

describe("/rehydrate off the event loop", { timeout: 120_000 }, () => {
  const rehydrate = (app: ReturnType<typeof createApp>, body: string) =>
    app.request("/rehydrate", { method: "POST", body, headers: { "x-context-guru-session": "r" } });

  it("restores a large body on a worker thread byte for byte", async () => {
    // The compacted body is far smaller than the original: both go to a worker.
    const { app } = testApp({ limits: { compact_timeout_ms: 60_000, worker_min_bytes: 1024 } });
    const large = largeLogBody(1024 * 1024);
    const compacted = await (
      await postCompact(app, large, { headers: { "x-context-guru-session": "r", ...COLD } })
    ).text();
    expect(compacted).not.toBe(large);

    const response = await rehydrate(app, compacted);

    expect(response.status).toBe(200);
    expect(await response.text()).toBe(large);
    expect(await jobs(app, { job: "rehydrate", thread: "worker", end: "completed" })).toBe(1);
  });

  it("restores a small body standing for a large original on a worker thread", async () => {
    // The compacted body is under worker_min_bytes; the body it restores is far over it.
    const { app } = testApp({
      limits: { compact_timeout_ms: 60_000, worker_min_bytes: 64 * 1024 },
    });
    // One build log of about 0.8 MB, collapsed to its head and tail.
    const log = Array.from(
      { length: 20_000 },
      (_, line) => `cc -c src/unit-${line}.c -o unit-${line}.o`,
    );
    const large = openaiBody([log.join("\n")]);
    const compacted = await (
      await postCompact(app, large, { headers: { "x-context-guru-session": "r", ...COLD } })
    ).text();
    expect(large.length).toBeGreaterThan(10 * 64 * 1024);
    expect(compacted.length).toBeLessThan(64 * 1024);

    const response = await rehydrate(app, compacted);

    expect(response.status).toBe(200);
    expect(await response.text()).toBe(large);
    expect(await jobs(app, { job: "rehydrate", thread: "worker", end: "completed" })).toBe(1);
    expect(await jobs(app, { job: "rehydrate", thread: "inline", end: "completed" })).toBe(0);
  });

  it("answers 503 with retry-after beyond limits.inflight_bytes", async () => {
    const { app } = testApp({ limits: { inflight_bytes: 1024 } });

    const response = await rehydrate(app, openaiBody([logOutput(100)]));

    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ error: "too many bodies in flight, retry later" });
  });

  it("answers 503 with retry-after at the deadline while the store is slow", async () => {
    const config = parseConfig({ limits: { rehydrate_timeout_ms: 300 } });
    const { store } = recordingStore(createStore(config.store), 2_000);
    const app = createApp({ config, store });
    const started = performance.now();

    const response = await rehydrate(app, largeLogBody(512 * 1024));

    expect(performance.now() - started).toBeLessThan(1_900);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ error: "rehydration did not finish within 300 ms" });
  });

  it("answers 413 for a body whose rehydration would not fit a worker's heap", async () => {
    // No deadline can come first on a loaded machine: the answer is the heap's, not the clock's.
    const config = parseConfig({
      limits: { memo_bytes: 8 * 1024 * 1024, compact_timeout_ms: 600_000 },
    });
    const store = createStore(config.store);
    const pool = new WorkerPool({
      size: 1,
      setup: { config, hashKey: TEST_HASH_KEY },
      store,
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    });
    const app = createApp({ config, store, pool });

    const response = await rehydrate(app, tinyMessagesBody(16 * 1024 * 1024));
    await pool.close();

    expect(response.status).toBe(413);
    expect((await response.json()) as { error: string }).toMatchObject({
      error: expect.stringMatching(
        /^request body needs about \d+ MiB to rehydrate, more than the \d+ MiB a worker thread has$/,
      ),
    });
  });
});

describe("the proxy's compaction step", { timeout: 60_000 }, () => {
  let upstream: ScriptedUpstream;
  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
  });
  afterAll(() => upstream.close());

  it("forwards a body beyond limits.inflight_bytes as it came", async () => {
    const input: ConfigInput = {
      pipeline: ["mask"],
      limits: { inflight_bytes: 1024 },
      upstream: { openai: { base_url: `http://127.0.0.1:${upstream.port}/v1` } },
    };
    const { app } = testApp(input);
    const body = JSON.stringify(openaiConversation());
    expect(body.length).toBeGreaterThan(1024);
    upstream.reply({ json: { id: "chatcmpl-1", choices: [] } });

    const response = await app.request("/v1/chat/completions", {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });

    expect(response.status).toBe(200);
    expect(upstream.requests[0]?.body).toBe(body);
    expect(await jobs(app, { job: "compact", thread: "inline", end: "declined" })).toBe(1);
  });
});
