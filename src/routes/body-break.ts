import type { Context } from "hono";

/** The Node response the adapter writes to (`c.env.outgoing` under @hono/node-server). */
interface Outgoing {
  destroy(): void;
  readonly destroyed: boolean;
}

function outgoingOf(c: Context): Outgoing | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return typeof outgoing === "object" &&
    outgoing !== null &&
    typeof (outgoing as Outgoing).destroy === "function"
    ? (outgoing as Outgoing)
    : undefined;
}

/**
 * `response` with a body that, should it fail mid-way (the upstream went away while streaming),
 * breaks the client's connection at once: the client gets the bytes sent so far and then a
 * broken body, as it would from the upstream itself. Left to the Node adapter, a failing body
 * is printed to stderr with its stack trace and socket addresses, outside the JSON logs, and an
 * error text is written into the body. Off a Node server (in-process `app.request()`), the body
 * fails as it did.
 */
export function breakOnBodyError(c: Context, response: Response): Response {
  const outgoing = outgoingOf(c);
  if (response.body === null || outgoing === undefined) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        // The adapter sees the socket close and cancels this stream, quietly.
        if (!outgoing.destroyed) outgoing.destroy();
        return;
      }
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason).catch(() => undefined),
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
