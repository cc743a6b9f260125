import type { ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { largeLogBody } from "../../bench/large-bodies.js";
import { type ServerChild, startServerChild } from "../../bench/server-child.js";

/**
 * The server process's own limits (§10), over real sockets: slow headers and slow bodies are
 * closed at their configured deadlines, an idle keep-alive connection never resets a request
 * already sent, and SIGTERM lets a large response reach a slow reader whole.
 */
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

async function start(yaml: string): Promise<ServerChild> {
  const started = await startServerChild(yaml);
  child = started.process;
  return started;
}

/** Opens a raw connection and resolves once it is connected. */
async function open(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((done, fail) => {
    socket.once("connect", done);
    socket.once("error", fail);
  });
  return socket;
}

/** Milliseconds until the server closes `socket`, and what it sent before. */
function closedAfter(socket: Socket): Promise<{ ms: number; received: string }> {
  const started = performance.now();
  let received = "";
  socket.on("data", (chunk) => {
    received += String(chunk);
  });
  socket.on("error", () => {});
  return new Promise((done) =>
    socket.once("close", () => done({ ms: performance.now() - started, received })),
  );
}

describe("server deadlines", { timeout: 90_000 }, () => {
  it("closes a connection whose headers never finish at limits.header_timeout_ms", async () => {
    const server = await start("limits:\n  header_timeout_ms: 1000\n  request_timeout_ms: 5000");
    const socket = await open(server.port);
    const closed = closedAfter(socket);
    socket.write("POST /compact HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    const timer = setInterval(() => socket.write("a"), 100);

    const { ms } = await closed;
    clearInterval(timer);

    // Checked every 100 ms here; Node's default check every 30 s closed it after up to 60 s.
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(5_000);
  });

  it("answers 408 and closes a connection whose body never finishes at limits.request_timeout_ms", async () => {
    const server = await start("limits:\n  header_timeout_ms: 1000\n  request_timeout_ms: 1500");
    const socket = await open(server.port);
    const closed = closedAfter(socket);
    socket.write(
      "POST /compact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
    );
    const timer = setInterval(() => socket.write(" "), 100);

    const { ms, received } = await closed;
    clearInterval(timer);

    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(ms).toBeLessThan(6_000);
  });

  it("serves a request sent on an idle keep-alive connection while the event loop was busy past its timeout", async () => {
    // A body compacted on the event loop holds it for longer than the keep-alive timeout.
    const server = await start(
      [
        "limits:",
        "  keep_alive_timeout_ms: 200",
        "  worker_min_bytes: 67108864",
        "  compact_timeout_ms: 60000",
      ].join("\n"),
    );
    const idle = await open(server.port);
    const responses: string[] = [];
    let text = "";
    idle.on("data", (chunk) => {
      text += String(chunk);
      for (const match of text.matchAll(/HTTP\/1\.1 (\d{3})/g)) responses.push(match[1] as string);
      text = "";
    });
    const failed = new Promise<string>((done) => {
      idle.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? "error"));
      idle.on("close", () => done("closed"));
    });
    const livez = "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n";
    idle.write(livez);
    while (responses.length < 1) await new Promise((done) => setTimeout(done, 5));

    const busy = fetch(`http://127.0.0.1:${server.port}/compact`, {
      method: "POST",
      body: largeLogBody(6 * 1024 * 1024),
      headers: { "content-type": "application/json" },
    });
    await new Promise((done) => setTimeout(done, 100));
    idle.write(livez);
    await busy;
    const outcome = await Promise.race([
      (async () => {
        while (responses.length < 2) await new Promise((done) => setTimeout(done, 5));
        return "answered";
      })(),
      failed,
    ]);

    expect(outcome).toBe("answered");
    expect(responses).toEqual(["200", "200"]);
    idle.destroy();
  });
});

describe("SIGTERM with a large response in flight", { timeout: 90_000 }, () => {
  it("delivers a 24 MB response to a slow reader whole, then exits 0", async () => {
    const server = await start("server:\n  shutdown_timeout_ms: 20000");
    const body = largeLogBody(24 * 1024 * 1024);
    const received = await new Promise<number>((done, fail) => {
      let bytes = 0;
      let signalled = false;
      const request = httpRequest(
        {
          host: "127.0.0.1",
          port: server.port,
          method: "POST",
          path: "/compact",
          headers: { "content-type": "application/json", "x-context-guru-bypass": "true" },
        },
        (response) => {
          response.on("data", (chunk: Buffer) => {
            bytes += chunk.length;
            if (signalled) return;
            // The first bytes are in: stop reading, signal, and read slowly from then on.
            signalled = true;
            response.pause();
            server.process.kill("SIGTERM");
            setTimeout(() => response.resume(), 1_000);
          });
          response.on("end", () => done(bytes));
          response.on("error", fail);
        },
      );
      request.on("error", fail);
      request.end(body);
    });

    expect(received).toBe(Buffer.byteLength(body));
    expect(await server.exited).toBe(0);
  });
});
