import type { ServerResponse } from "node:http";
import type { Context } from "hono";
import type { Delivery } from "../proxy/handle.js";
import type { BodyEnd } from "../proxy/relay-body.js";

/**
 * Where a relayed upstream body is written, and the request's `bodyEnd` (its log line waits for
 * it): the body's end settles it, however the body ended.
 */
export function deliveryOf(c: Context): Delivery {
  let settle: (end: BodyEnd) => void = () => {};
  c.set(
    "bodyEnd",
    new Promise<BodyEnd>((resolve) => {
      settle = resolve;
    }),
  );
  // On Node's HTTP server the adapter passes the response being written.
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return { outgoing, onBodyEnd: settle };
}
