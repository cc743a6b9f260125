import { isRecord } from "../../is-record.js";

/** A message item: `type: "message"`, or the easy form with a `role` and no type. */
export function isMessage(item: Record<string, unknown>): boolean {
  return item.type === "message" || (item.type === undefined && typeof item.role === "string");
}

/** The text of a message item: its content string, or its text parts joined by newlines. */
export function itemText(item: Record<string, unknown>): string {
  const { content } = item;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content) if (isTextPart(part)) texts.push(part.text);
  return texts.join("\n");
}

/** A text part of a message item's content (`input_text`, `output_text`, `text`). */
export function isTextPart(part: unknown): part is { text: string } {
  if (!isRecord(part) || typeof part.text !== "string") return false;
  return part.type === "input_text" || part.type === "output_text" || part.type === "text";
}
