import { describe, expect, it } from "vitest";
import { testApp } from "../support/app.js";

describe("requests no route matched", () => {
  const { app } = testApp();

  it.each([
    ["GET", "/compact", "POST"],
    ["PUT", "/compact", "POST"],
    ["DELETE", "/rehydrate", "POST"],
    ["GET", "/v1/chat/completions", "POST"],
    ["GET", "/v1/messages", "POST"],
    ["POST", "/expand", "GET, HEAD"],
    ["POST", "/livez", "GET, HEAD"],
    ["DELETE", "/readyz", "GET, HEAD"],
    ["POST", "/metrics", "GET, HEAD"],
    ["PUT", "/openapi.yaml", "GET, HEAD"],
  ])("%s %s → 405 with allow: %s", async (method, path, allow) => {
    const response = await app.request(path, { method });
    expect({
      status: response.status,
      allow: response.headers.get("allow"),
      type: response.headers.get("content-type"),
      body: await response.json(),
    }).toEqual({
      status: 405,
      allow,
      type: "application/json",
      body: {
        error: `${method} is not allowed on ${path}; use ${allow.split(", ").join(" or ")}`,
      },
    });
  });

  it.each(["/compact/compact", "/compact/", "/v1/compact", "/api/compact"])(
    "POST %s → 404 naming the one URL that compacts",
    async (path) => {
      const response = await app.request(path, { method: "POST", body: '{"messages":[]}' });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: `no route ${path}: the compaction route is POST /compact exactly; give the caller the full URL ending in /compact (http://HOST:PORT/compact) and nothing after it`,
      });
    },
  );

  it("an unknown path is a plain 404", async () => {
    const response = await app.request("/nope", { method: "POST" });
    expect([response.status, response.headers.get("allow"), await response.json()]).toEqual([
      404,
      null,
      { error: "not found" },
    ]);
  });

  it("HEAD on a GET route still answers", async () => {
    const response = await app.request("/livez", { method: "HEAD" });
    expect(response.status).toBe(200);
  });
});
