import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { EXCHANGE_HEADER, type Exchange, type UpgradeAttempt } from "./records.js";

/**
 * A recording forwarder between a CLI and the service. Requests go on with the client's own
 * headers and body (plus one tag header, `x-e2e-exchange`, that lets the scripted model tell
 * which exchange an upstream request belongs to); responses come back as they stream, and both
 * are recorded. WebSocket upgrade attempts are piped as raw bytes, so the service answers them
 * itself, and the time of the attempt and of the answer are kept.
 */
export class RecordingTap {
  readonly exchanges: Exchange[] = [];
  readonly upgrades: UpgradeAttempt[] = [];
  /** The run the next exchanges belong to. */
  run = "";
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly agent = new Agent({ keepAlive: true });
  private count = 0;

  constructor(
    private readonly target: { readonly host: string; readonly port: number },
    private readonly now: () => number,
  ) {}

  async listen(): Promise<string> {
    const server = createServer((request, response) => this.forward(request, response));
    server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) =>
      this.pipeUpgrade(request, socket, head),
    );
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private nextId(): string {
    this.count++;
    return `E${String(this.count).padStart(3, "0")}`;
  }

  private forward(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    const startedAt = this.now();
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const exchange: Exchange = {
        id: this.nextId(),
        run: this.run,
        method: request.method ?? "GET",
        url: request.url ?? "/",
        requestHeaders: request.rawHeaders,
        requestBody: body.toString("utf8"),
        startedAt,
        status: 0,
        responseHeaders: [],
        responseBody: "",
        endedAt: 0,
      };
      this.exchanges.push(exchange);
      const received: Buffer[] = [];
      const upstream = httpRequest(
        {
          host: this.target.host,
          port: this.target.port,
          method: exchange.method,
          path: exchange.url,
          headers: [...request.rawHeaders, EXCHANGE_HEADER, exchange.id],
          agent: this.agent,
        },
        (answer) => {
          exchange.status = answer.statusCode ?? 0;
          exchange.responseHeaders = answer.rawHeaders;
          response.writeHead(exchange.status, answer.statusMessage, answer.rawHeaders);
          answer.on("data", (chunk: Buffer) => {
            received.push(chunk);
            response.write(chunk);
          });
          answer.on("end", () => {
            exchange.responseBody = Buffer.concat(received).toString("utf8");
            exchange.endedAt = this.now();
            response.end();
          });
          answer.on("error", (error) => {
            exchange.error = error.message;
            exchange.responseBody = Buffer.concat(received).toString("utf8");
            exchange.endedAt = this.now();
            response.destroy(error);
          });
        },
      );
      upstream.on("error", (error) => {
        exchange.error = error.message;
        exchange.endedAt = this.now();
        if (!response.headersSent) response.writeHead(502, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: "tap: the service did not answer" }));
      });
      upstream.end(body);
    });
  }

  private pipeUpgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    const attempt: UpgradeAttempt = {
      id: this.nextId(),
      run: this.run,
      url: request.url ?? "/",
      requestHeaders: request.rawHeaders,
      startedAt: this.now(),
    };
    this.upgrades.push(attempt);
    const upstream = connect(this.target.port, this.target.host);
    this.sockets.add(socket).add(upstream);
    const lines = [`${request.method} ${attempt.url} HTTP/${request.httpVersion}`];
    const raw = request.rawHeaders;
    for (let index = 0; index + 1 < raw.length; index += 2)
      lines.push(`${raw[index]}: ${raw[index + 1]}`);
    lines.push(`${EXCHANGE_HEADER}: ${attempt.id}`);
    upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.once("data", (chunk: Buffer) => {
      attempt.answeredAt = this.now();
      attempt.statusLine = chunk.toString("latin1").split("\r\n")[0] ?? "";
    });
    upstream.pipe(socket);
    socket.pipe(upstream);
    const end = () => {
      socket.destroy();
      upstream.destroy();
      this.sockets.delete(socket);
      this.sockets.delete(upstream);
    };
    upstream.on("close", end).on("error", end);
    socket.on("close", end).on("error", end);
  }
}
