import type { Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";
import type { Config } from "../config/schema.js";

/**
 * The Node HTTP server's own limits (§10): the header deadline, the deadline for the whole
 * request body, how long an idle keep-alive connection stays open, and the header size. Node
 * checks the header and request deadlines every `connectionsCheckingInterval` (30 s by
 * default, so a 30 s header deadline closed a slow client after up to 60 s); a check every
 * second, or every tenth of the shorter deadline, closes it within that much of its deadline.
 */
export function httpServerOptions(limits: Config["limits"]): ServerOptions {
  return {
    headersTimeout: limits.header_timeout_ms,
    requestTimeout: limits.request_timeout_ms,
    keepAliveTimeout: limits.keep_alive_timeout_ms,
    connectionsCheckingInterval: Math.max(
      10,
      Math.min(
        1_000,
        Math.floor(Math.min(limits.header_timeout_ms, limits.request_timeout_ms) / 10),
      ),
    ),
    maxHeaderSize: limits.max_header_bytes,
  };
}

/**
 * An idle keep-alive connection is closed at its timeout only when no byte of a next request
 * has arrived. Node would close it as soon as the timer fires; when the event loop was busy
 * past the timeout, that timer runs before the socket is read, and a request the client had
 * already sent was reset. Deciding after this turn's reads (`setImmediate` runs after them)
 * keeps such a connection: its request is served, and the timer starts again after it.
 */
export function keepRequestsAlreadySent(server: Server): void {
  server.on("timeout", (socket: Socket) => {
    const seen = socket.bytesRead;
    setImmediate(() => {
      if (!socket.destroyed && socket.bytesRead === seen) socket.destroy();
    });
  });
}
