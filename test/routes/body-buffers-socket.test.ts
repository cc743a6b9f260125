import { type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "../support/app.js";

/**
 * `/compact` bodies over a real socket are read into buffers kept from one body to the next
 * (src/routes/body-buffers.ts): a later body reuses a buffer, and never one whose response is
 * still being written.
 */
let server: ServerType;
let port: number;
let app: ReturnType<typeof testApp>["app"];

beforeAll(async () => {
  ({ app } = testApp());
  await new Promise<void>((ready) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
      port = info.port;
      ready();
    });
  });
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

/** A body of `bytes` bytes, every character of its output `fill`. */
function bodyOf(bytes: number, fill: string): Buffer {
  const frame = JSON.stringify({ model: "m", messages: [{ role: "user", content: "" }] });
  const content = fill.repeat(bytes - Buffer.byteLength(frame));
  return Buffer.from(JSON.stringify({ model: "m", messages: [{ role: "user", content }] }), "utf8");
}

/** POSTs `body` to /compact, sent back as it came (bypass); resolves with the response. */
function bypass(body: Buffer): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/compact",
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": String(body.byteLength),
          "x-context-guru-bypass": "true",
        },
      },
      resolve,
    );
    req.on("error", reject);
    req.end(body);
  });
}

function bytesOf(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.on("end", () => resolve(Buffer.concat(chunks)));
    response.on("error", reject);
  });
}

async function reused(): Promise<number> {
  const text = await (await app.request("/metrics")).text();
  return Number(/^cg_body_buffers_reused_total (\d+)$/m.exec(text)?.[1]);
}

describe("/compact bodies in kept buffers", () => {
  it("reads a later body into the buffer of an earlier one, answered in full", async () => {
    const before = await reused();
    for (const fill of ["a", "b", "c"]) {
      const body = bodyOf(200_000, fill);
      expect((await bytesOf(await bypass(body))).equals(body)).toBe(true);
    }
    expect((await reused()) - before).toBeGreaterThanOrEqual(2);
  });

  it("answers a body read slowly with its own bytes while later bodies come and go", async () => {
    // Larger than the socket buffers of both ends: most of it waits in the server while the
    // client reads nothing.
    const slow = bodyOf(24_000_000, "s");
    const response = await bypass(slow);
    response.pause();
    for (const fill of ["x", "y", "z"]) {
      const body = bodyOf(24_000_000, fill);
      expect((await bytesOf(await bypass(body))).equals(body)).toBe(true);
    }
    const answer = bytesOf(response);
    response.resume();
    expect((await answer).equals(slow)).toBe(true);
  }, 60_000);
});
