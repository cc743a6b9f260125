import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

const DECLARED_LENGTH = /^\d{1,15}$/;

/**
 * `limits.body_bytes` for a route: `413 {"error":"request body exceeds N bytes"}` over it. A body
 * that declares its length is judged by the header alone (Node's HTTP parser holds the body to
 * it), so the route then reads the body straight off the socket: building a WHATWG stream to
 * count it would cost more than compacting a small body; on Node's HTTP server it is read into
 * one buffer of the declared size, so a body costs its size once (collecting chunks and joining
 * them held it twice at the end of the read). A body without a declared length
 * (chunked) is counted as it streams in and refused as soon as it passes the limit.
 */
export function limitBody(maxSize: number): MiddlewareHandler {
  const tooLarge = (c: Context) => c.json({ error: `request body exceeds ${maxSize} bytes` }, 413);
  const streamed = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header("content-length");
    if (
      declared !== undefined &&
      DECLARED_LENGTH.test(declared) &&
      c.req.header("transfer-encoding") === undefined
    ) {
      const length = Number(declared);
      if (length > maxSize) return tooLarge(c);
      const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
      // Hono keeps each body reading as a promise in bodyCache; c.req.arrayBuffer() returns it.
      if (incoming) {
        (c.req.bodyCache as unknown as { arrayBuffer?: Promise<ArrayBuffer> }).arrayBuffer =
          readDeclared(incoming, length);
      }
      await next();
      return;
    }
    return streamed(c, next);
  };
}

/**
 * Reads a body of a declared length into one buffer of that size, shared memory: a worker
 * thread that compacts the body reads these same bytes (posting a 32 MiB copy held the event
 * loop for a tenth of a second), and the route can still answer with them.
 */
function readDeclared(incoming: IncomingMessage, length: number): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const shared = new SharedArrayBuffer(length);
    const body = Buffer.from(shared);
    let filled = 0;
    incoming.on("data", (chunk: Buffer) => {
      // Node's parser holds a body to its content-length; the check keeps the copy in bounds.
      if (filled + chunk.length > length) {
        incoming.destroy(new Error("request body longer than its content-length"));
        return;
      }
      chunk.copy(body, filled);
      filled += chunk.length;
    });
    incoming.once("end", () => {
      // Read as an ArrayBuffer's bytes by every caller (views, TextDecoder, a response body).
      if (filled === length) resolve(shared as unknown as ArrayBuffer);
      else reject(new Error("request body shorter than its content-length"));
    });
    incoming.once("error", reject);
    incoming.once("aborted", () => reject(new Error("request aborted")));
  });
}
