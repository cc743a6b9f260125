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
    const app = appWith();
    const { ids } = await compact(app, agentBody("own"), "owner-session");
    expect(ids.length).toBeGreaterThan(0);
    const id = ids[0] as string;
    const owner = await app.request(`/expand?id=${id}`, {
      headers: { "x-context-guru-session": "owner-session" },
    });
    expect(owner.status).toBe(200);
    expect(contentHasher()(await owner.text())).toBe(id);
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

describe("HMAC marker ids (store.hash_key)", () => {
  it("the same content gets different ids under different keys, and each resolves", async () => {
    const body = agentBody("same");
    const plain = await compact(appWith(), body, "s");
    const keyed = [
      appWith({ store: { hash_key: "deployment-key-one-0001" } }),
      appWith({ store: { hash_key: "deployment-key-two-0002" } }),
    ];
    const [one, two] = await Promise.all(keyed.map((app) => compact(app, body, "s")));
    expect(one?.ids.length).toBe(plain.ids.length);
    expect(two?.ids.length).toBe(plain.ids.length);
    for (const id of one?.ids ?? []) {
      expect(plain.ids).not.toContain(id);
      expect(two?.ids).not.toContain(id);
    }
    for (const [index, app] of keyed.entries()) {
      const own = [one, two][index]?.ids[0] as string;
      const other = [two, one][index]?.ids[0] as string;
      const headers = { "x-context-guru-session": "s" };
      const expanded = await app.request(`/expand?id=${own}`, { headers });
      expect(expanded.status).toBe(200);
      expect(
        contentHasher(["deployment-key-one-0001", "deployment-key-two-0002"][index])(
          await expanded.text(),
        ),
      ).toBe(own);
      expect((await app.request(`/expand?id=${other}`, { headers })).status).toBe(404);
    }
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
