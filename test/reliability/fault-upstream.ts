import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request the upstream received, and how its exchange ended. */
export interface Received {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Resolves when the connection closes: `finished` false means the caller went away first. */
  readonly closed: Promise<{ finished: boolean }>;
}

export type Fault = (request: Received, response: ServerResponse) => void | Promise<void>;

/** A 200 of `contentType` that sends `sent`, then resets the connection 50 ms later. */
export function breaksOffAfter(contentType: string, sent: string): Fault {
  return async (_request, response) => {
    response.writeHead(200, { "content-type": contentType });
    response.write(sent);
    await new Promise((done) => setTimeout(done, 50));
    response.socket?.destroy();
  };
}

/**
 * A model upstream on a loopback socket that misbehaves on purpose: each test hands it the
 * fault to play (slow, reset, malformed, 5xx, silent). It records every request it gets.
 */
export class FaultUpstream {
  readonly received: Received[] = [];
  fault: Fault = (_request, response) => {
    response.end();
  };
  readonly #sockets = new Set<Socket>();
  readonly #server = createServer((request, response) => this.#handle(request, response));

  static async start(): Promise<FaultUpstream> {
    const upstream = new FaultUpstream();
    upstream.#server.on("connection", (socket) => {
      upstream.#sockets.add(socket);
      socket.on("close", () => upstream.#sockets.delete(socket));
    });
    await new Promise<void>((done) => upstream.#server.listen(0, "127.0.0.1", done));
    return upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((done) => this.#server.close(() => done()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const closed = new Promise<{ finished: boolean }>((done) =>
      response.on("close", () => done({ finished: response.writableFinished })),
    );
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const received: Received = {
      url: request.url ?? "",
      headers: request.headers,
      body: Buffer.concat(parts).toString("utf8"),
      closed,
    };
    this.received.push(received);
    await this.fault(received, response);
  }
}

/** The wire text of one OpenAI stream chunk carrying a text delta. */
export function textChunk(text: string): string {
  const chunk = {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "m",
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A promise and the function that settles it, to hold a fault until the test lets it go. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((done) => {
    open = done;
  });
  return { opened, open };
}
