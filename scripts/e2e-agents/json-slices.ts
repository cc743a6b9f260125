/**
 * The exact text of JSON values inside a body, so the harness compares what a client sent and
 * what the upstream received byte for byte, never a re-serialisation of either. A small scanner
 * of its own: the harness checks the service, so it does not read bodies through the service's
 * code. Offsets are UTF-16 indices into the decoded text; expects text JSON.parse accepted.
 */

export interface Slice {
  readonly start: number;
  readonly end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipSpace(text: string, at: number): number {
  let position = at;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    position++;
  }
  return position;
}

/** The index just past the string literal that opens at `at`. */
function stringEnd(text: string, at: number): number {
  let position = at + 1;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === BACKSLASH) position += 2;
    else if (code === QUOTE) return position + 1;
    else position++;
  }
  throw new Error(`unterminated string at ${at}`);
}

/** The index just past the JSON value that starts at `at`. */
export function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first !== "{" && first !== "[") {
    let position = at;
    while (position < text.length && !/[\s,\]}]/.test(text[position] ?? "")) position++;
    return position;
  }
  let depth = 0;
  let position = at;
  while (position < text.length) {
    const char = text[position];
    if (char === '"') {
      position = stringEnd(text, position);
      continue;
    }
    if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return position + 1;
    }
    position++;
  }
  throw new Error(`unterminated value at ${at}`);
}

/** The value slices of an object's members, by key (the last one wins, as in JSON.parse). */
export function objectMembers(text: string, object: Slice): Map<string, Slice> {
  const members = new Map<string, Slice>();
  if (text[object.start] !== "{") return members;
  let position = skipSpace(text, object.start + 1);
  while (text[position] === '"') {
    const keyEnd = stringEnd(text, position);
    const key = JSON.parse(text.slice(position, keyEnd)) as string;
    position = skipSpace(text, keyEnd);
    position = skipSpace(text, position + 1); // the colon
    const end = valueEnd(text, position);
    members.set(key, { start: position, end });
    position = skipSpace(text, end);
    if (text[position] === ",") position = skipSpace(text, position + 1);
  }
  return members;
}

/** The slices of an array's elements, in order; empty when the slice is not an array. */
export function arrayElements(text: string, array: Slice): Slice[] {
  const elements: Slice[] = [];
  if (text[array.start] !== "[") return elements;
  let position = skipSpace(text, array.start + 1);
  while (position < array.end && text[position] !== "]") {
    const end = valueEnd(text, position);
    elements.push({ start: position, end });
    position = skipSpace(text, end);
    if (text[position] === ",") position = skipSpace(text, position + 1);
  }
  return elements;
}

/** The slices of the root object's members. */
export function topLevelMembers(text: string): Map<string, Slice> {
  const start = skipSpace(text, 0);
  return objectMembers(text, { start, end: valueEnd(text, start) });
}

export function sliceText(text: string, slice: Slice): string {
  return text.slice(slice.start, slice.end);
}
