import type { MessagesView } from "../pipeline/types.js";
import type { BodyScan } from "./json-scan.js";
import type { WireShape } from "./shape.js";

/**
 * The messages (Responses: items) of a request for messages-scoped components and the cost
 * replay's prompt rendering: each message as its shape renders it (role, what the model reads,
 * the tool calls it makes and answers), and the raw JSON of any run of messages (from the scan's
 * element spans, so it is exactly the client's bytes).
 */
export function messagesView(
  shape: Pick<WireShape, "view">,
  messages: readonly unknown[],
  scan: BodyScan,
  text: string,
): MessagesView {
  return {
    messages: messages.map((message, index) => shape.view(message, index)),
    raw(from, to) {
      const first = scan.messages[from];
      const last = scan.messages[to - 1];
      if (!first || !last || to <= from) throw new RangeError(`no messages ${from}..${to}`);
      return text.slice(first.start, last.end);
    },
  };
}
