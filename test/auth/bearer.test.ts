import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bearerAuth } from "../../src/auth/bearer.js";

const token = "s3cret-token-0123456789";

function appWith(configured: string | undefined) {
  const app = new Hono();
  app.use("/metrics", bearerAuth(configured));
  app.get("/metrics", (context) => context.text("metrics"));
  app.get("/livez", (context) => context.text("ok"));
  return app;
}

describe("bearerAuth", () => {
  it.each([
    ["no token configured, no header", undefined, undefined, 200],
    ["no token configured, any header", undefined, "Bearer whatever", 200],
    ["correct token", token, `Bearer ${token}`, 200],
    ["scheme in lower case", token, `bearer ${token}`, 200],
    ["missing header", token, undefined, 401],
    ["wrong token of the same length", token, `Bearer ${"x".repeat(token.length)}`, 401],
    ["a prefix of the token", token, `Bearer ${token.slice(0, 8)}`, 401],
    ["the token plus more", token, `Bearer ${token}x`, 401],
    ["basic scheme", token, `Basic ${token}`, 401],
    ["no scheme", token, token, 401],
    ["empty bearer", token, "Bearer ", 401],
  ])("%s → %d", async (_case, configured, header, status) => {
    const headers: Record<string, string> = header === undefined ? {} : { authorization: header };
    const response = await appWith(configured).request("/metrics", { headers });
    expect(response.status).toBe(status);
    if (status === 401) {
      expect(await response.json()).toEqual({ error: "missing or invalid bearer token" });
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="cg-compactor"');
    } else {
      expect(await response.text()).toBe("metrics");
    }
  });

  it("leaves routes it is not mounted on open", async () => {
    expect((await appWith(token).request("/livez")).status).toBe(200);
  });
});
