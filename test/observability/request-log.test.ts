import { Writable } from "node:stream";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/logger.js";
import { requestLog } from "../../src/observability/request-log.js";

/** A logger whose JSON lines are collected in memory. */
function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ destination }), lines };
}

const secret = "sk-planted-credential-7f3a";
const content = "PLANTED MESSAGE CONTENT 91c2";

function appWith(logger: ReturnType<typeof createLogger>) {
  const app = new Hono();
  app.use(requestLog(logger));
  app.post("/compact", async (context) => {
    const body = await context.req.text();
    return context.body(body, 200, {
      "content-type": "application/json",
      "x-context-guru-tokens-before": "120",
      "x-context-guru-tokens-after": "45",
    });
  });
  app.post("/v1/messages", (context) => {
    context.set("tokens", { before: 900, after: 300 });
    return context.json({ error: "upstream unreachable" }, 502);
  });
  app.get("/livez", (context) => context.json({ status: "ok" }));
  return app;
}

const body = JSON.stringify({ messages: [{ role: "user", content }] });
const post = (extra: Record<string, string> = {}) => ({
  method: "POST",
  body,
  headers: {
    "content-type": "application/json",
    authorization: `Bearer ${secret}`,
    "x-api-key": secret,
    cookie: `session=${secret}`,
    ...extra,
  },
});

describe("request log", () => {
  it.each([
    [
      "/compact",
      post(),
      {
        level: "info",
        method: "POST",
        route: "/compact",
        status: 200,
        tokens_before: 120,
        tokens_after: 45,
      },
    ],
    [
      "/v1/messages",
      post(),
      {
        level: "error",
        method: "POST",
        route: "/v1/messages",
        status: 502,
        tokens_before: 900,
        tokens_after: 300,
      },
    ],
    ["/livez", { method: "GET" }, { level: "info", method: "GET", route: "/livez", status: 200 }],
    [
      "/nowhere?session=abc",
      { method: "GET" },
      { level: "info", method: "GET", route: "unmatched", status: 404 },
    ],
  ])("%s writes one JSON line with its fields", async (path, init, expected) => {
    const { logger, lines } = capturedLogger();
    const response = await appWith(logger).request(path, init);
    expect(lines).toHaveLength(1);
    const line: Record<string, unknown> = JSON.parse(lines[0] ?? "");
    const { time, request_id, duration_ms, ...rest } = line;
    expect(rest).toEqual({ service: "cg-compactor", msg: "request", ...expected });
    expect(typeof time).toBe("string");
    expect(request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("x-request-id")).toBe(request_id);
    expect(typeof duration_ms === "number" && duration_ms >= 0).toBe(true);
  });

  it("never writes credentials, message content or the query", async () => {
    const { logger, lines } = capturedLogger();
    const app = appWith(logger);
    await app.request("/compact?preset=agent", post());
    await app.request("/v1/messages", post());
    await app.request(`/nowhere?token=${secret}`, post());
    const text = lines.join("\n");
    expect(lines).toHaveLength(3);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(content);
    expect(text).not.toContain("preset");
  });

  it.each([
    ["trace-01.ab:cd", "trace-01.ab:cd"],
    ["has spaces", undefined],
    ["x".repeat(129), undefined],
  ])("incoming x-request-id %j is kept only when usable", async (incoming, kept) => {
    const { logger, lines } = capturedLogger();
    const response = await appWith(logger).request("/livez", {
      headers: { "x-request-id": incoming },
    });
    const id = response.headers.get("x-request-id");
    expect(JSON.parse(lines[0] ?? "").request_id).toBe(id);
    if (kept) expect(id).toBe(kept);
    else expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("redacts credentials even when a caller logs headers", () => {
    const { logger, lines } = capturedLogger();
    logger.warn({ headers: { authorization: secret, "x-api-key": secret, cookie: secret } }, "x");
    logger.warn({ upstream: { api_key: secret, headers: { authorization: secret } } }, "y");
    expect(lines.join("\n")).not.toContain(secret);
    expect(JSON.parse(lines[0] ?? "").headers).toEqual({
      authorization: "[redacted]",
      "x-api-key": "[redacted]",
      cookie: "[redacted]",
    });
  });
});
