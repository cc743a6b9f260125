import { codeAt } from "../text/char-code.js";
import type { Span } from "./types.js";

export interface Edit {
  readonly span: Span;
  /** Raw JSON text that takes the span's place. */
  readonly raw: string;
}

/** The text with every span replaced; spans must not overlap. Untouched bytes stay as they were. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  if (edits.length === 0) return text;
  const ordered = [...edits].sort((a, b) => a.span.start - b.span.start);
  const parts: string[] = [];
  let cursor = 0;
  for (const { span, raw } of ordered) {
    if (span.start < cursor) throw new RangeError("overlapping edits");
    parts.push(text.slice(cursor, span.start), raw);
    cursor = span.end;
  }
  parts.push(text.slice(cursor));
  return parts.join("");
}

/**
 * `text` with the JSON texts `elements` appended to the array at `span`, every other byte as it
 * was; undefined when the span does not hold an array.
 */
export function appendElements(
  text: string,
  span: Span,
  elements: readonly string[],
): string | undefined {
  if (codeAt(text, span.start) !== 91 /* [ */) return undefined;
  const bracket = span.end - 1;
  const empty = text.slice(span.start + 1, bracket).trim() === "";
  return `${text.slice(0, bracket)}${empty ? "" : ","}${elements.join(",")}${text.slice(bracket)}`;
}
