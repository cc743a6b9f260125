import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { jobSession } from "../../src/compaction/job-session.js";
import { type JobStart, WorkerPool } from "../../src/compaction/worker-pool.js";
import { parseConfig } from "../../src/config/load.js";
import { explicitSessionKey, sessionKey } from "../../src/session/key.js";
import { SESSION_WINDOW } from "../../src/session/prefix-key.js";
import { createStore } from "../../src/store/create.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";
import { ScriptedUpstream } from "../support/scripted-upstream.js";

/**
 * The session a compaction job carries to the worker pool: the key the compactor uses, found
 * without parsing the body on the event loop.
 */
const outputs = [logOutput(2000, "a"), logOutput(2000, "b"), "done"];
const body = openaiBody(outputs, { metadata: { note: "after the messages" } });
/** A user id after the messages: the compactor's key, which a window of the body never reaches. */
const withUserId = openaiBody(outputs, { metadata: { user_id: "user_7" } });
const keyOf = (text: string) => sessionKey(JSON.parse(text));

describe("jobSession", () => {
  const shared = new Uint8Array(new SharedArrayBuffer(body.length + 16), 16, body.length);
  shared.set(Buffer.from(body));

  it.each([
    ["an explicit id, as the compactor reads it", body, "team-a:run.7", "team-a:run.7"],
    ["an explicit id that is not usable as it is", body, "a b", explicitSessionKey("a b")],
    ["a body's bytes", Buffer.from(body), undefined, keyOf(body)],
    ["a body's bytes in shared memory", shared, undefined, keyOf(body)],
    ["a decoded body", body, undefined, keyOf(body)],
    ["a user id after the messages: the conversation's key", withUserId, undefined, keyOf(body)],
    [
      "no conversation within the window",
      `{"tools":["${"x".repeat(SESSION_WINDOW)}"]}`,
      "",
      undefined,
    ],
  ])("%s", (_name, input, explicit, expected) => {
    expect(body.length).toBeGreaterThan(SESSION_WINDOW);
    expect(jobSession(input, explicit)).toBe(expected);
  });
});

describe("the session a route's job carries", { timeout: 60_000 }, () => {
  let upstream: ScriptedUpstream;
  const pools: WorkerPool[] = [];
  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
  });
  afterAll(() => upstream.close());
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });

  /** An app over a one-worker pool that records the session of each job it starts. */
  async function recordingApp() {
    const config = parseConfig({
      limits: { compact_timeout_ms: 60_000 },
      upstream: { openai: { base_url: `http://127.0.0.1:${upstream.port}/v1` } },
    });
    const store = createStore(config.store);
    const starts: JobStart[] = [];
    const pool = new WorkerPool({
      size: 1,
      setup: { config, hashKey: TEST_HASH_KEY },
      store,
      onStart: (start) => starts.push(start),
    });
    pools.push(pool);
    await pool.warm();
    return { app: createApp({ config, store, hashKey: TEST_HASH_KEY, pool }), starts };
  }

  it.each([
    ["/compact without a session header", "/compact", {}, body, keyOf(body)],
    ["/compact with one", "/compact", { "x-context-guru-session": "run-7" }, body, "run-7"],
    // The proxy parsed the body anyway: its job carries the compactor's own key.
    ["the proxy route", "/v1/chat/completions", {}, withUserId, "user_7"],
  ])("%s: the key the compactor uses", async (_name, path, headers, sent, expected) => {
    const { app, starts } = await recordingApp();
    upstream.reply({ json: { id: "chatcmpl-1", choices: [] } });
    const response = await app.request(path, {
      method: "POST",
      body: sent,
      headers: { "content-type": "application/json", "x-context-guru-cache": "cold", ...headers },
    });
    await response.text();
    const answered = response.headers.get("x-context-guru-session");
    expect({ starts: starts.map((start) => start.session), answered }).toEqual({
      starts: [expected],
      answered: expected,
    });
  });
});
