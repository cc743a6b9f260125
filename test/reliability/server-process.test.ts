import type { ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ServerChild, startServerChild } from "../../bench/server-child.js";
import { FaultUpstream, gate } from "./fault-upstream.js";

/**
 * The real server process (`node --import tsx src/server.ts`): SIGTERM while requests are in
 * flight (they finish, new connections are refused, the process exits inside its deadline),
 * and the header size limit of the HTTP server.
 */
const COMPLETION = '{"choices":[{"message":{"role":"assistant","content":"done"}}]}';
let upstream: FaultUpstream;
let child: ChildProcess | undefined;

beforeAll(async () => {
  upstream = await FaultUpstream.start();
});
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
  upstream.received.length = 0;
});
afterAll(() => upstream.close());

async function startServer(yaml: string): Promise<ServerChild> {
  const started = await startServerChild(yaml);
  child = started.process;
  return started;
}

function chat(port: number): Promise<{ status: number; body: string }> {
  return fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  }).then(async (response) => ({ status: response.status, body: await response.text() }));
}

const config = (deadlineMs: number) =>
  [
    "upstream:",
    "  openai:",
    `    base_url: ${upstream.url}/v1`,
    "server:",
    `  shutdown_timeout_ms: ${deadlineMs}`,
    "limits:",
    "  max_header_bytes: 8192",
  ].join("\n");

describe("SIGTERM", { timeout: 90_000 }, () => {
  it("lets in-flight requests finish, refuses new connections, and exits 0", async () => {
    const release = gate();
    upstream.fault = async (_request, response) => {
      await release.opened;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(COMPLETION);
    };
    const server = await startServer(config(20_000));
    const inFlight = [chat(server.port), chat(server.port)];
    while (upstream.received.length < 2) await new Promise((done) => setTimeout(done, 20));

    server.process.kill("SIGTERM");
    await server.logged("draining");
    const refused = await fetch(`http://127.0.0.1:${server.port}/livez`).catch(
      (error: Error & { cause?: { code?: string } }) => error.cause?.code,
    );
    expect(refused).toBe("ECONNREFUSED");

    release.open();
    expect(await Promise.all(inFlight)).toEqual([
      { status: 200, body: COMPLETION },
      { status: 200, body: COMPLETION },
    ]);
    expect(await server.exited).toBe(0);
  });

  it("exits 1 at the drain deadline when a request never finishes", async () => {
    upstream.fault = () => {};
    const server = await startServer(config(300));
    const stuck = chat(server.port).catch(() => "dropped");
    while (upstream.received.length < 1) await new Promise((done) => setTimeout(done, 20));
    server.process.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(await stuck).toBe("dropped");
  });
});

describe("header limits", { timeout: 90_000 }, () => {
  it("answers 431 to request headers over limits.max_header_bytes", async () => {
    const server = await startServer(config(5_000));
    const status = await new Promise<number | undefined>((done, fail) => {
      const request = httpRequest(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/livez",
          headers: { "x-big": "a".repeat(16_384) },
        },
        (response) => {
          response.resume();
          done(response.statusCode);
        },
      );
      request.on("error", fail);
      request.end();
    });
    expect(status).toBe(431);
    const small = await fetch(`http://127.0.0.1:${server.port}/livez`, {
      headers: { "x-small": "a" },
    });
    expect(small.status).toBe(200);
  });
});
