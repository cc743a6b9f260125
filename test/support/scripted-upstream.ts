import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";

/** One server-sent event; object data is JSON-encoded. */
export interface ScriptedEvent {
  readonly event?: string;
  readonly data: unknown;
}

/** How the upstream answers one request. */
export interface ScriptedReply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body. */
  readonly json?: unknown;
  /** A raw body. */
  readonly body?: string;
  /** An event stream, one write per event. */
  readonly sse?: readonly ScriptedEvent[];
  /** Wait for this before sending the response headers. */
  readonly delay?: Promise<void> | number;
  /** In a stream, wait for `until` before writing the event at index `before`. */
  readonly hold?: { readonly before: number; readonly until: Promise<void> };
  /** Destroy the connection instead of answering, or (with `sse`) before event `index`. */
  readonly reset?: true | { readonly before: number };
  /** Send the body gzip-compressed with `content-encoding: gzip`. */
  readonly gzip?: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: unknown;
  /** Settles when the proxy closed the connection before the reply was complete. */
  readonly abandoned: Promise<void>;
}

type Script = (request: RecordedRequest, index: number) => ScriptedReply;

/**
 * A model upstream on a real loopback socket (port 0): records every request it gets and
 * answers each with the next scripted reply (or a function of the request).
 */
export class ScriptedUpstream {
  readonly requests: RecordedRequest[] = [];
  #replies: ScriptedReply[] = [];
  #script: Script | undefined;
  readonly #sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {
    server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    server.on("request", (request, response) => {
      const parts: Buffer[] = [];
      request.on("data", (part: Buffer) => parts.push(part));
      request.on("end", () => {
        const body = Buffer.concat(parts).toString("utf8");
        const abandoned = new Promise<void>((resolve) => {
          response.on("close", () => {
            if (!response.writableFinished) resolve();
          });
        });
        const recorded: RecordedRequest = {
          method: request.method ?? "",
          url: request.url ?? "",
          headers: request.headers,
          body,
          json: parseJson(body),
          abandoned,
        };
        const index = this.requests.push(recorded) - 1;
        const reply = this.#script?.(recorded, index) ?? this.#replies.shift();
        if (reply === undefined) {
          response.writeHead(500, { "content-type": "application/json" });
          response.end('{"error":"no scripted reply"}');
          return;
        }
        void this.#answer(reply, response);
      });
    });
  }

  static async start(): Promise<ScriptedUpstream> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return new ScriptedUpstream(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Replies for the next requests, in order. */
  reply(...replies: ScriptedReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  /** Answers every request with a function of it (replaces queued replies). */
  script(script: Script): this {
    this.#script = script;
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.#replies = [];
    this.#script = undefined;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async #answer(reply: ScriptedReply, response: ServerResponse): Promise<void> {
    if (typeof reply.delay === "number")
      await new Promise((r) => setTimeout(r, reply.delay as number));
    else if (reply.delay) await reply.delay;
    if (reply.reset === true) {
      response.socket?.destroy();
      return;
    }
    const status = reply.status ?? 200;
    if (reply.sse !== undefined) return this.#stream(reply, reply.sse, response);
    const text = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? "");
    const headers: Record<string, string> = {
      "content-type": reply.json !== undefined ? "application/json" : "text/plain",
      ...reply.headers,
    };
    if (reply.gzip) {
      headers["content-encoding"] = "gzip";
      response.writeHead(status, headers);
      response.end(gzipSync(text));
      return;
    }
    response.writeHead(status, headers);
    response.end(text);
  }

  async #stream(
    reply: ScriptedReply,
    events: readonly ScriptedEvent[],
    response: ServerResponse,
  ): Promise<void> {
    response.writeHead(reply.status ?? 200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...reply.headers,
    });
    response.flushHeaders();
    for (const [index, event] of events.entries()) {
      if (reply.hold?.before === index) await reply.hold.until;
      if (typeof reply.reset === "object" && reply.reset.before === index) {
        // Flush what was written, then close the connection without ending the chunked body.
        response.socket?.end();
        return;
      }
      response.write(sseText(event));
    }
    response.end();
  }
}

/** The wire text of one event. */
export function sseText(event: ScriptedEvent): string {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  return `${event.event === undefined ? "" : `event: ${event.event}\n`}data: ${data}\n\n`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
