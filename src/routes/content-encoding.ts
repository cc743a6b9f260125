import { promisify } from "node:util";
import * as zlib from "node:zlib";
import type { MiddlewareHandler } from "hono";
import { requestBytes } from "./body-limit.js";

type Decoder = (input: Uint8Array, options: { maxOutputLength: number }) => Promise<Buffer>;

const gunzip = promisify(zlib.gunzip) as Decoder;
const inflate = promisify(zlib.inflate) as Decoder;
const inflateRaw = promisify(zlib.inflateRaw) as Decoder;
const brotli = promisify(zlib.brotliDecompress) as Decoder;

/** `deflate` is zlib-wrapped by the standard, but some clients send it raw: take either. */
const deflate: Decoder = (input, options) =>
  inflate(input, options).catch((error: unknown) =>
    isTooLarge(error) ? Promise.reject(error) : inflateRaw(input, options),
  );

const decoders: Readonly<Record<string, Decoder>> = {
  gzip: gunzip,
  "x-gzip": gunzip,
  deflate,
  br: brotli,
};

/**
 * Codings one body may stack. Clients compress once; a second layer (`gzip, br`) is taken, but
 * each layer is a decompression of up to the body limit, and a header may name thousands.
 */
const MAX_CODINGS = 2;

/**
 * Request bodies sent with `content-encoding: gzip`, `deflate` or `br` (at most `MAX_CODINGS`,
 * in the order they were applied) are decompressed before the route reads them, to at most
 * `maxBytes` (`413` beyond, as for a plain body over the limit). The route then sees a plain body
 * without `content-encoding`, and answers it as it answers any other; its compacted answer goes
 * back uncompressed. A body whose coding is unknown, whose codings are more than `MAX_CODINGS`,
 * or whose bytes do not decompress is answered at once with its own bytes under its own
 * `content-encoding`, so nothing is lost and nothing is mislabelled: the caller keeps its
 * original.
 */
export function decodeBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header("content-encoding");
    if (header === undefined) return next();
    const codings = header
      .split(",")
      .map((coding) => coding.trim().toLowerCase())
      .filter((coding) => coding !== "" && coding !== "identity");
    if (codings.length === 0) return next();
    const received = await requestBytes(c);
    if (codings.length > MAX_CODINGS) return asReceived(received, header);
    let decoded: Uint8Array<ArrayBufferLike> = received;
    try {
      for (const coding of codings.toReversed()) {
        const decoder = decoders[coding];
        if (decoder === undefined) return asReceived(received, header);
        decoded = await decoder(decoded, { maxOutputLength: maxBytes });
      }
    } catch (error) {
      if (isTooLarge(error)) {
        return c.json({ error: `decompressed request body exceeds ${maxBytes} bytes` }, 413);
      }
      return asReceived(received, header);
    }
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-encoding");
    headers.set("content-length", String(decoded.byteLength));
    c.req.raw = new Request(c.req.raw.url, {
      method: c.req.raw.method,
      headers,
      body: decoded,
      signal: c.req.raw.signal,
    });
    // The body was read once already; the route reads the decoded one.
    c.req.bodyCache = {};
    c.set("body", undefined);
    return next();
  };
}

function asReceived(bytes: Uint8Array, contentEncoding: string): Response {
  return new Response(bytes, {
    status: 200,
    headers: { "content-type": "application/json", "content-encoding": contentEncoding },
  });
}

function isTooLarge(error: unknown): boolean {
  return (
    error instanceof RangeError || (error as { code?: unknown })?.code === "ERR_BUFFER_TOO_LARGE"
  );
}
