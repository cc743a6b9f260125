import type { Edit } from "./edit.js";
import type { BodyScan } from "./json-scan.js";

/**
 * The edit that puts `element` in place of messages[from..to): from the first one's `{` to the
 * last one's `}`, so the separators around the run stay as the client wrote them.
 */
export function replaceMessagesEdit(
  scan: BodyScan,
  from: number,
  to: number,
  element: string,
): Edit | undefined {
  const first = scan.messages[from];
  const last = scan.messages[to - 1];
  if (!first || !last || to <= from) return undefined;
  return { span: { start: first.start, end: last.end }, raw: element };
}

/**
 * The text of a message a summary put in place (WireShape.summaryMessage: string content or one
 * text block), whichever chat shape wrote it.
 */
export function elementText(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { content } = message as { content?: unknown };
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const [block] = content as unknown[];
  if (typeof block !== "object" || block === null) return undefined;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === "text" && typeof text === "string" ? text : undefined;
}
