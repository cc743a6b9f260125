import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "../support/app.js";
import { logOutput, MASKABLE_OUTPUTS, openaiBody } from "../support/bodies.js";

/**
 * limits.body_bytes over a real socket, where a body with a declared length is read straight
 * from the connection and a chunked one is counted as it arrives: both are refused over the
 * limit, both are compacted under it.
 */
const LIMIT = 64 * 1024;
let server: ServerType;
let port: number;

beforeAll(async () => {
  const { app } = testApp({ limits: { body_bytes: LIMIT } });
  await new Promise<void>((ready) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
      port = info.port;
      ready();
    });
  });
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

/** POSTs `body` with a content-length, or in 4 KiB chunks without one. */
function post(
  path: string,
  body: string,
  chunked: boolean,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    // Decided whole (§4a): older outputs are masked, so the body is compacted.
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-context-guru-cache": "cold",
    };
    if (!chunked) headers["content-length"] = String(bytes.byteLength);
    const req = request({ host: "127.0.0.1", port, path, method: "POST", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
      );
    });
    // The server may answer 413 and close before the whole body is written.
    req.on("error", reject);
    for (let at = 0; at < bytes.byteLength; at += 4096) req.write(bytes.subarray(at, at + 4096));
    req.end();
  });
}

const under = openaiBody(MASKABLE_OUTPUTS);
const over = openaiBody([logOutput(2000)]);

describe("body limit over a socket", () => {
  it("the bodies are on either side of the limit", () => {
    expect(Buffer.byteLength(under)).toBeLessThan(LIMIT);
    expect(Buffer.byteLength(over)).toBeGreaterThan(LIMIT);
  });

  describe.each([
    ["with a content-length", false],
    ["chunked", true],
  ])("%s", (_name, chunked) => {
    it.each(["/compact", "/rehydrate"])("%s answers 413 over the limit", async (path) => {
      const response = await post(path, over, chunked);
      expect(response.status).toBe(413);
      expect(JSON.parse(response.text)).toEqual({ error: `request body exceeds ${LIMIT} bytes` });
    });

    it("/compact reads the whole body under the limit and compacts it", async () => {
      const response = await post("/compact", under, chunked);
      expect(response.status).toBe(200);
      expect(response.text.length).toBeLessThan(under.length);
      const back = await post("/rehydrate", response.text, chunked);
      expect(back.status).toBe(200);
      expect(back.text).toBe(under);
    });
  });
});
