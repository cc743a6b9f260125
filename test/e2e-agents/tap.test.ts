import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RecordingTap } from "../../scripts/e2e-agents/tap.js";

/** The recording tap between a client and a server, both on real loopback sockets. */

interface Seen {
  readonly rawHeaders: string[];
  readonly body: string;
}

describe("the recording tap", () => {
  let target: Server;
  let tap: RecordingTap;
  let tapUrl: URL;
  const seen: Seen[] = [];
  beforeEach(async () => {
    seen.length = 0;
    target = createServer((incoming: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        seen.push({ rawHeaders: incoming.rawHeaders, body: Buffer.concat(chunks).toString() });
        response.writeHead(200, {
          "content-type": "text/event-stream",
          "x-context-guru-cache": "warm",
        });
        response.write("event: a\ndata: 1\n\n");
        response.end("event: b\ndata: 2\n\n");
      });
    });
    // An upgrade attempt is answered as the service answers it: no upgrade, a JSON error.
    target.on("upgrade", (_incoming, socket) => {
      socket.end(
        "HTTP/1.1 426 Upgrade Required\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
      );
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    let clock = 0;
    tap = new RecordingTap(
      { host: "127.0.0.1", port: (target.address() as AddressInfo).port },
      () => ++clock,
    );
    tap.run = "claude";
    tapUrl = new URL(await tap.listen());
  });
  afterEach(async () => {
    await tap.close();
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  it("forwards the client's headers and body, tags them, and records both sides", async () => {
    const body = '{"model":"m","messages":[]}';
    const answer = await new Promise<{ status: number; text: string; headers: string[] }>(
      (resolve, reject) => {
        const sent = request(
          new URL("/v1/messages?beta=true", tapUrl),
          { method: "POST", headers: { "Content-Type": "application/json", "X-Api-Key": "k" } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () =>
              resolve({
                status: response.statusCode ?? 0,
                text: Buffer.concat(chunks).toString(),
                headers: response.rawHeaders,
              }),
            );
          },
        );
        sent.on("error", reject);
        sent.end(body);
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toBe("event: a\ndata: 1\n\nevent: b\ndata: 2\n\n");
    expect(answer.headers).toContain("x-context-guru-cache");
    expect(seen[0]?.body).toBe(body);
    expect(seen[0]?.rawHeaders).toEqual(
      expect.arrayContaining([
        "Content-Type",
        "application/json",
        "X-Api-Key",
        "k",
        "x-e2e-exchange",
        "E001",
      ]),
    );
    expect(tap.exchanges).toMatchObject([
      {
        id: "E001",
        run: "claude",
        method: "POST",
        url: "/v1/messages?beta=true",
        requestBody: body,
        status: 200,
        responseBody: answer.text,
      },
    ]);
  });

  it("pipes a WebSocket upgrade attempt to the server and records its answer", async () => {
    const socket = connect(Number(tapUrl.port), "127.0.0.1");
    await once(socket, "connect");
    socket.write(
      "GET /v1/responses HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    );
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    await once(socket, "close");
    expect(Buffer.concat(chunks).toString()).toMatch(
      /^HTTP\/1\.1 426 Upgrade Required\r\n[\s\S]*\r\n\r\n\{\}$/,
    );
    expect(tap.upgrades).toMatchObject([
      {
        id: "E001",
        run: "claude",
        url: "/v1/responses",
        statusLine: "HTTP/1.1 426 Upgrade Required",
      },
    ]);
    expect(tap.upgrades[0]?.answeredAt).toBeGreaterThan(
      tap.upgrades[0]?.startedAt ?? Number.POSITIVE_INFINITY,
    );
  });
});
