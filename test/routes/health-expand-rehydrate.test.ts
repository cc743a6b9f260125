import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { Lifecycle } from "../../src/lifecycle/lifecycle.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { COLD, MASK_BY_AGE, postCompact, testApp } from "../support/app.js";
import { jsonArrayOutput, MASKABLE_OUTPUTS, openaiBody } from "../support/bodies.js";

/** A store whose backend is unreachable: every call fails. */
function downStore(): Store {
  const fail = () => Promise.reject(new Error("connection refused"));
  return {
    backend: "redis",
    persists: true,
    put: fail,
    get: fail,
    ledger: fail,
    keep: fail,
    observe: fail,
    sharedNumber: fail,
    swapSharedNumber: fail,
    ready: () => Promise.resolve(false),
    stats: fail,
    close: () => Promise.resolve(),
  };
}

const outputs = MASKABLE_OUTPUTS;

describe("health routes", () => {
  it.each(["/livez", "/healthz"])("%s → 200", async (path) => {
    const { app } = testApp();
    const response = await app.request(path);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("/readyz → 200 with the store backend", async () => {
    const { app } = testApp();
    const response = await app.request("/readyz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready", store: "memory", ledger: "memory" });
  });

  it("/readyz → 503 while draining, and other routes refuse new work", async () => {
    const lifecycle = new Lifecycle();
    const config = parseConfig({});
    const app = createApp({ config, store: createStore(config.store), lifecycle });
    lifecycle.beginDrain();
    const ready = await app.request("/readyz");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining" });
    expect((await app.request("/livez")).status).toBe(200);
    const compact = await app.request("/compact", { method: "POST", body: "{}" });
    expect(compact.status).toBe(503);
  });

  it("/readyz → 503 while a required store is unreachable", async () => {
    const app = createApp({ config: parseConfig({}), store: downStore() });
    const response = await app.request("/readyz");
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: "store_unavailable",
      store: "redis",
      ledger: "redis",
    });
  });

  it("unknown routes → 404 JSON", async () => {
    const { app } = testApp();
    const response = await app.request("/nope");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "not found" });
  });
});

describe("GET /expand", () => {
  it("serves the original to its session only", async () => {
    const { app } = testApp();
    const out = await (
      await postCompact(app, openaiBody(outputs), {
        headers: { "x-context-guru-session": "s-1", ...COLD },
      })
    ).text();
    const [id] = [...out.matchAll(/<<cg:([0-9a-f]{16})>>/g)].map((m) => m[1]);
    const own = await app.request(`/expand?id=${id}`, {
      headers: { "x-context-guru-session": "s-1" },
    });
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await own.text()).toBe(outputs[0]);
    expect((await app.request(`/expand?id=${id}&session=s-1`)).status).toBe(200);
    const other = await app.request(`/expand?id=${id}&session=s-2`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: "expired, unknown, or not owned by this session" });
    expect((await app.request(`/expand?id=${id}`)).status).toBe(404);
  });

  it.each(["", "?id=", "?id=has%20space", `?id=${"a".repeat(65)}`])(
    "a bad id %s → 400",
    async (query) => {
      const { app } = testApp();
      expect((await app.request(`/expand${query}`)).status).toBe(400);
    },
  );

  it("an unknown id → 404", async () => {
    const { app } = testApp();
    expect((await app.request("/expand?id=0123456789abcdef&session=s")).status).toBe(404);
  });

  it("an unreachable store → 503", async () => {
    const app = createApp({ config: parseConfig({}), store: downStore() });
    const response = await app.request("/expand?id=0123456789abcdef&session=s");
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: "store unavailable" });
  });
});

describe("POST /rehydrate", () => {
  it("restores the compacted body byte for byte", async () => {
    const { app } = testApp(MASK_BY_AGE);
    const body = openaiBody(outputs, {
      tools: [{ type: "function", function: { name: "Bash", parameters: {} } }],
    });
    const out = await (await postCompact(app, body, { headers: COLD })).text();
    expect(out).toContain("context_guru_expand");
    const response = await app.request("/rehydrate", { method: "POST", body: out });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-context-guru-restored")).toBe("2");
    expect(response.headers.get("x-context-guru-unresolved")).toBe("0");
    expect(await response.text()).toBe(body);
  });

  it("leaves unresolvable markers and counts them", async () => {
    const { app } = testApp();
    const body = openaiBody([
      "see <<cg:0123456789abcdef>>",
      "and <<cg:fedcba9876543210>> twice <<cg:fedcba9876543210>>",
    ]);
    const response = await app.request("/rehydrate", { method: "POST", body });
    expect(response.headers.get("x-context-guru-unresolved")).toBe("2");
    expect(await response.text()).toBe(body);
  });

  it.each([
    ["not JSON", "{", 400],
    ["not an object", "[1]", 400],
  ])("%s → %i", async (_, body, status) => {
    const { app } = testApp();
    const response = await app.request("/rehydrate", { method: "POST", body });
    expect(response.status).toBe(status);
    expect(Object.keys((await response.json()) as object)).toEqual(["error"]);
  });

  it("over the body limit → 413", async () => {
    const { app } = testApp({ limits: { body_bytes: 64 } });
    const response = await app.request("/rehydrate", { method: "POST", body: openaiBody(outputs) });
    expect(response.status).toBe(413);
  });

  it("an unreachable store → 503", async () => {
    const app = createApp({ config: parseConfig({}), store: downStore() });
    const response = await app.request("/rehydrate", {
      method: "POST",
      body: openaiBody(["<<cg:0123456789abcdef>>"]),
    });
    expect(response.status).toBe(503);
  });
});

describe("store failures during /compact", () => {
  it("a store that cannot keep the write reverts every offload (no marker without a stash)", async () => {
    const app = createApp({ config: parseConfig({}), store: downStore() });
    const body = openaiBody(outputs);
    const response = await postCompact(app, body, { headers: COLD });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(body);
  });

  it("lossless reformats still apply while the store is down", async () => {
    const app = createApp({ config: parseConfig({}), store: downStore() });
    const rows = jsonArrayOutput(40);
    const body = openaiBody([...outputs.slice(0, 4), rows]);
    const response = await postCompact(app, body, { headers: COLD });
    const out = JSON.parse(await response.text()) as { messages: { content: string | null }[] };
    const contents = out.messages.map((message) => message.content);
    // The JSON rows are repacked (format, toon); the logs keep every byte, masked or not.
    expect(contents.at(-1)).not.toBe(rows);
    expect(contents.at(-1)?.length).toBeLessThan(rows.length);
    expect(contents.slice(0, -1)).toEqual(
      (JSON.parse(body) as { messages: { content: string | null }[] }).messages
        .slice(0, -1)
        .map((message) => message.content),
    );
    expect(response.headers.get("x-context-guru-markers")).toBe("0");
  });
});
