import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { contentHasher, rawMarkerIds } from "../../src/expand/markers.js";
import { createLogger } from "../../src/observability/logger.js";
import { createStore } from "../../src/store/create.js";
import { FaultUpstream } from "./fault-upstream.js";

/** §10 security: session-scoped expand, bearer token, HMAC ids, limits, upstream host, logs. */
const TOKEN = "t0ken-with-enough-length-1234";
const SECRET = "sk-PLANTED-SECRET-0123456789";
const PLANTED = "PLANTED-MESSAGE-CONTENT-4711";
const KEY_ONE = "deployment-key-one-0001";
const KEY_TWO = "deployment-key-two-0002";

function appWith(input: ConfigInput = {}, logger?: ReturnType<typeof createLogger>) {
  const config = parseConfig(input);
  return createApp({ config, store: createStore(config.store), ...(logger ? { logger } : {}) });
}

/** Five distinct tool outputs big enough that mask stashes the two oldest. */
function agentBody(tag: string): string {
  const messages: unknown[] = [{ role: "user", content: `fix it ${PLANTED}` }];
  for (let index = 0; index < 5; index++) {
    const output = Array.from({ length: 30 }, (_, line) => `${tag} ${PLANTED} ${index}:${line}`);
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: `c${index}`, type: "function", function: { name: "Read", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: `c${index}`, content: output.join("\n") },
    );
  }
  const tools = [{ type: "function", function: { name: "Read", parameters: { type: "object" } } }];
  return JSON.stringify({ model: "m", messages, tools });
}

async function compact(app: ReturnType<typeof appWith>, body: string, session: string) {
  const response = await app.request("/compact", {
    method: "POST",
    body,
    // Decided whole (§4a): the older outputs are masked.
    headers: { "x-context-guru-session": session, "x-context-guru-cache": "cold" },
  });
  const { messages } = (await response.json()) as { messages: unknown };
  return { response, ids: [...new Set(rawMarkerIds(JSON.stringify(messages)))] };
}

describe("GET /expand is scoped to the session that stashed", () => {
  it("answers the owner with the exact original and everyone else with 404", async () => {
    const app = appWith({ store: { hash_key: KEY_ONE } });
    const { ids } = await compact(app, agentBody("own"), "owner-session");
    expect(ids.length).toBeGreaterThan(0);
    const id = ids[0] as string;
    const owner = await app.request(`/expand?id=${id}`, {
      headers: { "x-context-guru-session": "owner-session" },
    });
    expect(owner.status).toBe(200);
    expect(contentHasher(KEY_ONE)(await owner.text())).toBe(id);
    const refusals = [
      app.request(`/expand?id=${id}`, { headers: { "x-context-guru-session": "other-session" } }),
      app.request(`/expand?id=${id}&session=other-session`),
      app.request(`/expand?id=${id}`),
    ];
    for (const refused of await Promise.all(refusals)) {
      expect(refused.status).toBe(404);
      expect(await refused.text()).toBe(
        '{"error":"expired, unknown, or not owned by this session"}',
      );
    }
  });
});

describe("optional bearer token", () => {
  const app = appWith({ auth: { token: TOKEN } });
  const routes: ReadonlyArray<readonly [string, RequestInit]> = [
    ["/expand?id=abc&session=s", {}],
    ["/rehydrate", { method: "POST", body: "{}" }],
    ["/metrics", {}],
  ];

  it.each(routes)("%s refuses a missing or wrong token with 401", async (path, init) => {
    for (const authorization of [
      undefined,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}X`,
      TOKEN,
    ]) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const response = await app.request(path, { ...init, headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="cg-compactor"');
      expect(await response.text()).toBe('{"error":"missing or invalid bearer token"}');
    }
  });

  it.each(routes)("%s accepts the configured token", async (path, init) => {
    const response = await app.request(path, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).not.toBe(401);
  });

  it.each(["/expand/?id=abc&session=s", "//expand?id=abc&session=s", "/EXPAND?id=abc&session=s"])(
    "%s never serves stashed content without the token",
    async (path) => {
      const response = await app.request(path);
      expect([401, 404]).toContain(response.status);
    },
  );

  it("leaves /compact open, as the router calls it without credentials", async () => {
    const response = await app.request("/compact", { method: "POST", body: '{"messages":[]}' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"messages":[]}');
  });
});

const sha256Prefix = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** Each id of `ids` expanded by `session` on `app`: the stashed original. */
async function originals(app: ReturnType<typeof appWith>, ids: readonly string[]) {
  const headers = { "x-context-guru-session": "s" };
  return Promise.all(
    ids.map(async (id) => {
      const response = await app.request(`/expand?id=${id}`, { headers });
      expect(response.status).toBe(200);
      return response.text();
    }),
  );
}

describe("marker ids are HMAC-SHA-256 under a deployment key (§6)", () => {
  it("by default each deployment makes its own key: ids differ and are no content hash", async () => {
    const body = agentBody("same");
    const [one, two] = [appWith(), appWith()];
    const [first, second] = await Promise.all([compact(one, body, "s"), compact(two, body, "s")]);
    expect(first.ids.length).toBeGreaterThan(0);
    expect(second.ids.length).toBe(first.ids.length);
    expect(second.ids.filter((id) => first.ids.includes(id))).toEqual([]);
    const texts = await originals(one, first.ids);
    expect(await originals(two, second.ids)).toEqual(texts);
    // Hashing a guessed original gives nothing to look up.
    expect(texts.map(sha256Prefix).filter((id) => first.ids.includes(id))).toEqual([]);
    const probe = await one.request(`/expand?id=${sha256Prefix(texts[0] as string)}`, {
      headers: { "x-context-guru-session": "s" },
    });
    expect(probe.status).toBe(404);
    // One deployment's ids mean nothing to the other.
    const foreign = await two.request(`/expand?id=${first.ids[0]}`, {
      headers: { "x-context-guru-session": "s" },
    });
    expect(foreign.status).toBe(404);
  });

  it("with store.hash_key every deployment under one key writes the same ids, others do not", async () => {
    const body = agentBody("keyed");
    const apps = [
      appWith({ store: { hash_key: KEY_ONE } }),
      appWith({ store: { hash_key: KEY_ONE } }),
      appWith({ store: { hash_key: KEY_TWO } }),
    ];
    const [one, again, other] = await Promise.all(apps.map((app) => compact(app, body, "s")));
    expect(one?.ids.length).toBeGreaterThan(0);
    expect(again?.ids).toEqual(one?.ids);
    expect(other?.ids.filter((id) => one?.ids.includes(id))).toEqual([]);
    const texts = await originals(apps[0] as ReturnType<typeof appWith>, one?.ids ?? []);
    expect(texts.map(contentHasher(KEY_ONE))).toEqual(one?.ids);
    expect(
      (await originals(apps[2] as ReturnType<typeof appWith>, other?.ids ?? [])).map(
        contentHasher(KEY_TWO),
      ),
    ).toEqual(other?.ids);
  });

  it("/rehydrate restores with the deployment's own key", async () => {
    const app = appWith();
    const body = agentBody("rehydrate");
    const compacted = await app.request("/compact", {
      method: "POST",
      body,
      headers: { "x-context-guru-session": "s", "x-context-guru-cache": "cold" },
    });
    const text = await compacted.text();
    expect(rawMarkerIds(text).length).toBeGreaterThan(0);
    const restored = await app.request("/rehydrate", {
      method: "POST",
      body: text,
      headers: { "x-context-guru-session": "s" },
    });
    expect(restored.headers.get("x-context-guru-unresolved")).toBe("0");
    expect(await restored.text()).toBe(body);
  });
});

describe("body limit", () => {
  const limit = 1024;
  const app = appWith({ limits: { body_bytes: limit } });
  const over = JSON.stringify({
    model: "m",
    messages: [{ role: "user", content: "x".repeat(limit) }],
  });

  it.each(["/compact", "/rehydrate", "/v1/chat/completions", "/v1/messages"])(
    "%s answers 413 over the limit, with or without a content-length",
    async (path) => {
      const sized = await app.request(path, { method: "POST", body: over });
      const chunked = await app.request(path, {
        method: "POST",
        body: new Blob([over]).stream(),
        duplex: "half",
      } as RequestInit);
      for (const response of [sized, chunked]) {
        expect(response.status).toBe(413);
        expect(await response.text()).toBe(`{"error":"request body exceeds ${limit} bytes"}`);
      }
    },
  );
});

describe("the upstream host comes from configuration only", () => {
  let upstream: FaultUpstream;
  beforeAll(async () => {
    upstream = await FaultUpstream.start();
    upstream.fault = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(`{"choices":[{"message":{"role":"assistant","content":"${PLANTED} reply"}}]}`);
    };
  });
  afterAll(() => upstream.close());

  it("ignores Host, X-Forwarded-Host, Forwarded and an absolute request URL", async () => {
    const app = appWith({ upstream: { openai: { base_url: `${upstream.url}/v1` } } });
    const response = await app.request("http://evil.example:8443/v1/chat/completions?x=1", {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      headers: {
        host: "evil.example",
        "x-forwarded-host": "evil.example",
        "x-forwarded-proto": "https",
        forwarded: "host=evil.example;proto=https",
        cookie: "session=abc",
        "x-context-guru-session": "s",
      },
    });
    expect(response.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const [received] = upstream.received;
    expect(received?.url).toBe("/v1/chat/completions?x=1");
    expect(received?.headers.host).toBe(new URL(upstream.url).host);
    expect(received?.headers.cookie).toBeUndefined();
    expect(received?.headers["x-context-guru-session"]).toBeUndefined();
  });

  it("logs carry no credentials and no message content", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString("utf8"));
        done();
      },
    });
    const app = appWith(
      { upstream: { openai: { base_url: `${upstream.url}/v1` } } },
      createLogger({ level: "trace", destination }),
    );
    const headers = {
      authorization: `Bearer ${SECRET}`,
      "x-api-key": SECRET,
      cookie: `token=${SECRET}`,
      "x-context-guru-session": "logs",
    };
    const body = agentBody("log");
    const compacted = await app.request(`/compact?preset=${PLANTED}`, {
      method: "POST",
      body,
      headers,
    });
    const output = await compacted.text();
    const id = rawMarkerIds(output)[0] ?? "none";
    const proxied = await app.request("/v1/chat/completions", { method: "POST", body, headers });
    await proxied.text();
    await (await app.request(`/expand?id=${id}&session=logs`, { headers })).text();
    await (await app.request("/rehydrate", { method: "POST", body: output, headers })).text();
    await (await app.request(`/expand?id=${PLANTED}&session=${SECRET}`)).text();

    expect(lines.length).toBeGreaterThanOrEqual(5);
    const log = lines.join("");
    expect(log).toContain('"route":"/compact"');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(PLANTED);
  });
});
