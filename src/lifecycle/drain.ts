import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

interface Connection {
  /** Requests received on it whose responses have not closed yet. */
  responses: number;
  /** Resolves once it is closed, or ended by the server with everything written. */
  readonly done: Promise<void>;
  markDone(): void;
}

/**
 * Drains the HTTP server on SIGTERM (§10) without cutting a response short. Node's own
 * `server.close()` destroys every connection it considers idle, and a connection counts as
 * idle as soon as its response has been ended, even while megabytes of that response still
 * wait to be written to a slow reader: large bodies were cut off mid-way. Here a connection is
 * ended only once each of its responses has closed, and then gracefully (`end`, not `destroy`),
 * so the rest of what it holds is still delivered.
 */
export class ConnectionDrain {
  readonly #connections = new Map<Socket, Connection>();
  #draining = false;

  constructor(private readonly server: Server) {
    server.on("connection", (socket: Socket) => this.#track(socket));
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      const connection = this.#connections.get(request.socket);
      if (!connection) return;
      connection.responses++;
      response.once("close", () => {
        connection.responses--;
        if (this.#draining && connection.responses === 0) this.#end(request.socket);
      });
    });
    // server.close() calls this: end what is idle, never what is still being written.
    server.closeIdleConnections = () => {
      for (const [socket, connection] of this.#connections) {
        if (connection.responses === 0) this.#end(socket);
      }
    };
  }

  /** Connections open now. */
  get open(): number {
    return this.#connections.size;
  }

  /**
   * Stops accepting connections, ends each open one once its responses are written, and
   * resolves when every one is closed or has handed all its bytes to the operating system.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    this.server.close();
    await Promise.all([...this.#connections.values()].map((connection) => connection.done));
  }

  #track(socket: Socket): void {
    let markDone = () => {};
    const done = new Promise<void>((resolve) => {
      markDone = resolve;
    });
    const connection: Connection = { responses: 0, done, markDone };
    this.#connections.set(socket, connection);
    socket.once("close", () => {
      this.#connections.delete(socket);
      connection.markDone();
    });
    if (this.#draining) this.#end(socket);
  }

  #end(socket: Socket): void {
    const connection = this.#connections.get(socket);
    if (!connection) return;
    // `finish`: the last byte is with the operating system, which delivers it after an exit.
    socket.once("finish", () => connection.markDone());
    socket.end();
  }
}
