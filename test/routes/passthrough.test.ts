import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { createLogger } from "../../src/observability/logger.js";
import type { Registry } from "../../src/pipeline/run.js";
import { createStore } from "../../src/store/create.js";
import { sample } from "../observability/prometheus-text.js";
import { CLEAN, COLD } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";

/**
 * A `/compact` body given back untouched says why: `x-context-guru-passthrough: <reason>` on the
 * response and `passthrough` in the request's log line, for every reason — the body, the
 * caller's bypass, the bytes in flight, the deadline.
 */
function appWith(input: ConfigInput, registry?: Registry) {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = parseConfig(input);
  const app = createApp({
    config,
    store: createStore(config.store),
    logger: createLogger({ destination }),
    ...(registry ? { registry } : {}),
  });
  return { app, lines };
}

async function post(
  app: ReturnType<typeof createApp>,
  body: string,
  headers: Record<string, string> = {},
) {
  const response = await app.request("/compact", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
  return { response, text: await response.text() };
}

const compactable = openaiBody([logOutput(400)]);

describe("/compact says why a body went back untouched", () => {
  it.each([
    ["not JSON", "not_json", "{ not json", {}],
    ["not an object", "not_object", "[1,2,3]", {}],
    ["no messages", "no_messages", '{"model":"m","prompt":"hi"}', {}],
    ["the bypass header", "bypass", compactable, { "x-context-guru-bypass": "true" }],
  ])("%s → %s", async (_, reason, body, headers) => {
    const { app, lines } = appWith(CLEAN);
    const { response, text } = await post(app, body, headers);
    expect(response.status).toBe(200);
    expect(text).toBe(body);
    expect(response.headers.get("x-context-guru-passthrough")).toBe(reason);
    expect(lines.find((line) => line.msg === "request")).toMatchObject({
      route: "/compact",
      status: 200,
      passthrough: reason,
    });
  });

  it("busy: a body beyond the bytes in flight", async () => {
    const { app, lines } = appWith({ ...CLEAN, limits: { inflight_bytes: 64 } });
    const { response, text } = await post(app, compactable);
    expect(text).toBe(compactable);
    expect(response.headers.get("x-context-guru-passthrough")).toBe("busy");
    expect(lines.at(-1)).toMatchObject({ passthrough: "busy" });
    const metrics = await (await app.request("/metrics")).text();
    expect(sample(metrics, "cg_compact_passthrough_total", { reason: "busy" })).toBe(1);
  });

  it("deadline: a component that never answers", async () => {
    const never: Registry = {
      extract: {
        name: "extract",
        kind: "offload",
        scope: "output",
        reachesBack: false,
        bounds: false,
        reduce: () => new Promise<never>(() => {}),
      } as unknown as NonNullable<Registry["extract"]>,
    };
    const { app, lines } = appWith(
      { ...CLEAN, pipeline: ["extract"], limits: { compact_timeout_ms: 50 } },
      never,
    );
    const { response, text } = await post(app, compactable, COLD);
    expect(text).toBe(compactable);
    expect(response.headers.get("x-context-guru-passthrough")).toBe("deadline");
    expect(lines.at(-1)).toMatchObject({ passthrough: "deadline" });
  });

  it("a compacted body carries no passthrough header and logs its tokens", async () => {
    const { app, lines } = appWith(CLEAN);
    const { response } = await post(app, compactable, COLD);
    expect(response.headers.get("x-context-guru-passthrough")).toBeNull();
    expect(lines.at(-1)).not.toHaveProperty("passthrough");
    expect(lines.at(-1)).toHaveProperty("tokens_before");
  });
});

describe("a known route asked with the wrong method", () => {
  it("is logged and counted under its own route, not as unmatched", async () => {
    const { app, lines } = appWith(CLEAN);
    const response = await app.request("/compact");
    expect(response.status).toBe(405);
    expect(lines.at(-1)).toMatchObject({ route: "/compact", status: 405 });
    const metrics = await (await app.request("/metrics")).text();
    expect(
      sample(metrics, "cg_http_requests_total", {
        route: "/compact",
        method: "GET",
        status: "405",
      }),
    ).toBe(1);
  });
});

describe("clean mode says it keeps no originals", () => {
  it("/readyz reports the store as none and the ledger's backend", async () => {
    const { app } = appWith(CLEAN);
    expect(await (await app.request("/readyz")).json()).toEqual({
      status: "ready",
      store: "none",
      ledger: "memory",
    });
  });
});
