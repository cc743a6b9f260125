import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { request as httpRequest, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { largeLogBody } from "../../bench/large-bodies.js";
import { type ServerChild, startServerChild } from "../../bench/server-child.js";
import { keepRequestsAlreadySent } from "../../src/lifecycle/http-server.js";

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
});

describe("an idle keep-alive connection at its timeout", () => {
  /**
   * Node closes an idle keep-alive connection when its timer fires; when the event loop was busy
   * past the timeout, the timer runs before the socket is read, and a request the client had
   * already sent was reset. The decision is taken after the turn's reads: the server's timeout
   * event with a socket whose byte count then moves (a request arrived) keeps it open.
   */
  function timedOut(bytesArriving: number) {
    const server = new EventEmitter() as unknown as Server;
    keepRequestsAlreadySent(server);
    const socket = Object.assign(new EventEmitter(), {
      bytesRead: 120,
      destroyed: false,
      destroy() {
        this.destroyed = true;
      },
    });
    server.emit("timeout", socket);
    // This turn's reads, which run before the check phase.
    socket.bytesRead += bytesArriving;
    return new Promise<boolean>((done) => setImmediate(() => done(socket.destroyed)));
  }

  it("keeps a connection whose next request was read in the same turn", async () => {
    expect(await timedOut(34)).toBe(false);
  });

  it("closes a connection that stayed idle", async () => {
    expect(await timedOut(0)).toBe(true);
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
