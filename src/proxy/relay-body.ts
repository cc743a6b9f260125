import type { ServerResponse } from "node:http";

/** How a relayed body ended: read to its end, broken off upstream, or dropped by the client. */
export type BodyEnd = "completed" | "failed" | "cancelled";

import type { RoundBody as Body } from "./round.js";

/**
 * The upstream body as the client gets it, with its end reported. When the upstream breaks off
 * mid-body, the client gets every byte that arrived and then a broken body: once the status
 * line is out, the connection is ended where the bytes stop (a chunked body without its last
 * chunk), instead of handing the error to the HTTP adapter, which answers `500 text/plain`
 * when it has not sent the headers yet and appends its own error text when it has.
 */
export function relayBody(
  body: Body,
  outgoing: ServerResponse | undefined,
  onEnd: (end: BodyEnd) => void,
): Body {
  let ended = false;
  const end = (how: BodyEnd) => {
    if (ended) return;
    ended = true;
    onEnd(how);
  };
  if (!(body instanceof ReadableStream)) {
    end("completed");
    return body;
  }
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        end("failed");
        if (!outgoing) {
          controller.error(error);
          return;
        }
        await headersWritten(outgoing);
        outgoing.socket?.end();
        // Nothing more comes; the adapter cancels this stream once the connection closes.
        return new Promise<void>(() => {});
      }
      if (result.done) {
        end("completed");
        controller.close();
      } else {
        controller.enqueue(result.value);
      }
    },
    cancel(reason) {
      end("cancelled");
      return reader.cancel(reason);
    },
  });
}

/** Resolves once the status line and headers are written (the adapter writes them first). */
async function headersWritten(outgoing: ServerResponse): Promise<void> {
  for (let turn = 0; turn < 1000 && !outgoing.headersSent && !outgoing.destroyed; turn++) {
    await new Promise((done) => setImmediate(done));
  }
}
