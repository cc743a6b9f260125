import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { BodyBuffers } from "./body-buffers.js";

declare module "hono" {
  interface ContextVariableMap {
    /** The request body read into a lent buffer (limitBody with BodyBuffers): its bytes. */
    body: Promise<Uint8Array> | undefined;
  }
}

const DECLARED_LENGTH = /^\d{1,15}$/;

/**
 * `limits.body_bytes` for a route: `413 {"error":"request body exceeds N bytes"}` over it. A body
 * that declares its length is judged by the header alone (Node's HTTP parser holds the body to
 * it), so the route then reads the body straight off the socket: building a WHATWG stream to
 * count it would cost more than compacting a small body; on Node's HTTP server it is read into
 * one buffer of the declared size, so a body costs its size once (collecting chunks and joining
 * them held it twice at the end of the read). With `buffers`, such a body is read into a buffer
 * lent to the request until its response ends (see BodyBuffers), and the route reads it with
 * `requestBytes`. A body without a declared length (chunked) is counted as it streams in and
 * refused as soon as it passes the limit.
 */
export function limitBody(maxSize: number, buffers?: BodyBuffers): MiddlewareHandler {
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
      const { incoming, outgoing } =
        (c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined) ?? {};
      if (incoming && outgoing && buffers) {
        // Given back once the route is done with the body (its compaction settled: a job that
        // waits for a worker would read it) and the response has been written or its connection
        // has closed (`close`), whichever comes last.
        const lease = buffers.lend(length);
        let holders = 2;
        const letGo = () => {
          if (--holders === 0) lease.release();
        };
        outgoing.once("close", letGo);
        c.set("body", readInto(incoming, lease.bytes));
        try {
          await next();
        } finally {
          letGo();
        }
        return;
      }
      if (incoming) {
        // Hono keeps each body reading as a promise in bodyCache; c.req.arrayBuffer() returns it.
        (c.req.bodyCache as unknown as { arrayBuffer?: Promise<ArrayBuffer> }).arrayBuffer =
          readInto(incoming, new Uint8Array(new SharedArrayBuffer(length))).then(
            (bytes) => bytes.buffer as ArrayBuffer,
          );
      }
      await next();
      return;
    }
    return streamed(c, next);
  };
}

/**
 * The request body's bytes: as limitBody read them into a lent buffer, else as Hono reads them.
 */
export async function requestBytes(c: Context): Promise<Uint8Array> {
  return (await c.get("body")) ?? new Uint8Array(await c.req.arrayBuffer());
}

/**
 * Reads a body of a declared length into `bytes`, its length, in shared memory: a worker
 * thread that compacts the body reads these same bytes (posting a 32 MiB copy held the event
 * loop for a tenth of a second), and the route can still answer with them.
 */
function readInto(incoming: IncomingMessage, bytes: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const { length } = bytes;
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, length);
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
      if (filled === length) resolve(bytes);
      else reject(new Error("request body shorter than its content-length"));
    });
    incoming.once("error", reject);
    incoming.once("aborted", () => reject(new Error("request aborted")));
  });
}
