import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

/** One answer, timed from the last byte of the request body sent. */
export interface TimedAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Milliseconds from the last byte sent to the answer's headers, and to its last byte. */
  readonly headersMs: number;
  readonly ms: number;
  readonly body: Buffer;
}

/**
 * POSTs `body` to `path` on a loopback server, on a connection of its own (a kept-alive one
 * may have been closed by the server meanwhile), timed from its last byte sent: the server's
 * own time for the request, without the upload before it.
 */
export function postAfterUpload(
  port: number,
  path: string,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
): Promise<TimedAnswer> {
  return new Promise((done, fail) => {
    let sent = 0;
    const request = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        agent: false,
        headers: { "content-type": "application/json", ...headers },
      },
      (response) => {
        const headersMs = performance.now() - sent;
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          done({
            status: response.statusCode ?? 0,
            headers: response.headers,
            headersMs,
            ms: performance.now() - sent,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    request.on("error", fail);
    request.end(body, () => {
      sent = performance.now();
    });
  });
}
