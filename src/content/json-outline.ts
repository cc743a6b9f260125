import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from "../wire/json-chars.js";

/**
 * The outline of a JSON document too long to parse (content/json-limit.ts), from one scan of its
 * characters that builds no value: whether the text is one JSON object or array, and where the
 * items of its root array (or of the arrays its root object holds) begin and end. It lets a
 * multi-megabyte API dump keep its `json` class, so that no component folds it line by line (§5
 * Fidelity), and lets smartcrush drop whole items of it.
 *
 * The scan checks structure, not grammar: brackets balance outside strings, the document ends
 * where the text does, and outside strings only JSON's punctuation, number characters and the
 * letters of `true`, `false` and `null` occur. A text it accepts that `JSON.parse` would refuse is
 * still treated as a document: that only makes components more careful with it.
 */
export interface JsonOutline {
  /** Offset of the root's opening bracket. */
  readonly open: number;
  /** Offset of the root's closing bracket. */
  readonly close: number;
  /** The root is an array: its items; an object: its members' values, each a span. */
  readonly root: "array" | "object";
  readonly children: readonly JsonSpan[];
}

/** A value's text is `text.slice(start, end)`, surrounding whitespace excluded. */
export interface JsonSpan {
  readonly start: number;
  readonly end: number;
}

/** Characters that may stand outside strings: whitespace, punctuation, numbers, literals. */
const BARE = new Uint8Array(128);
for (const char of " \t\r\n,:-+.0123456789eEtrufalsn") BARE[char.charCodeAt(0)] = 1;

/**
 * The last outline read: a huge output is outlined by its classification, by the component that
 * shortens it and by the fidelity check of that change, one after the other.
 */
let last: { readonly text: string; readonly outline: JsonOutline | undefined } | undefined;

/** The outline of `text` as one JSON object or array, or undefined when it is not one. */
export function outlineJson(text: string): JsonOutline | undefined {
  if (last?.text === text) return last.outline;
  const outline = readOutline(text);
  last = { text, outline };
  return outline;
}

function readOutline(text: string): JsonOutline | undefined {
  let open = 0;
  while (open < text.length && isSpace(text.charCodeAt(open))) open++;
  const root = text.charCodeAt(open);
  if (root !== OPEN_BRACE && root !== OPEN_BRACKET) return undefined;
  const children: JsonSpan[] = [];
  // Depth-1 bookkeeping: where the current child's value starts (-1: not started).
  let childStart = -1;
  let childEnd = -1;
  let depth = 0;
  let close = -1;
  for (let at = open; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      if (end < 0) return undefined;
      if (depth === 1 && childStart < 0 && !(root === OPEN_BRACE && isKey(text, end))) {
        childStart = at;
      }
      at = end;
      if (depth === 1 && childStart >= 0) childEnd = end + 1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (depth === 1 && childStart < 0) childStart = at;
      depth++;
      continue;
    }
    if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth < 0) return undefined;
      if (depth === 1) childEnd = at + 1;
      if (depth === 0) {
        if ((code === CLOSE_BRACKET) !== (root === OPEN_BRACKET)) return undefined;
        if (childStart >= 0) children.push({ start: childStart, end: childEnd });
        close = at;
        break;
      }
      continue;
    }
    if (code >= 128 || BARE[code] !== 1) return undefined;
    if (depth !== 1) continue;
    if (code === COMMA) {
      if (childStart < 0) return undefined;
      children.push({ start: childStart, end: childEnd });
      childStart = -1;
    } else if (code === COLON) {
      if (root !== OPEN_BRACE) return undefined;
    } else if (!isSpace(code)) {
      // A number or literal at depth 1.
      if (childStart < 0) childStart = at;
      childEnd = at + 1;
    }
  }
  if (close < 0) return undefined;
  for (let at = close + 1; at < text.length; at++) {
    if (!isSpace(text.charCodeAt(at))) return undefined;
  }
  return { open, close, root: root === OPEN_BRACKET ? "array" : "object", children };
}

/** The offset of the quote that ends the string opened at `at`, or -1 when it never ends. */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** Whether the string ending at `end` is an object key (a colon follows it). */
function isKey(text: string, end: number): boolean {
  let at = end + 1;
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return text.charCodeAt(at) === COLON;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** An array of a document and its items: the root array, or the one its root object holds. */
export interface JsonItems {
  /** Offset of the array's `[`. */
  readonly open: number;
  /** Offset of the array's `]`. */
  readonly close: number;
  readonly items: readonly JsonSpan[];
}

/**
 * The root array of `text` with at least `minItems` items, or the single property of its root
 * object holding such an array (an envelope: `{"total": 120, "items": [...]}`); undefined when
 * there is none, or more than one.
 */
export function itemsOfJson(text: string, minItems: number): JsonItems | undefined {
  const outline = outlineJson(text);
  if (outline === undefined) return undefined;
  if (outline.root === "array") {
    return outline.children.length >= minItems
      ? { open: outline.open, close: outline.close, items: outline.children }
      : undefined;
  }
  const candidates: JsonItems[] = [];
  for (const child of outline.children) {
    if (text[child.start] !== "[") continue;
    const inner = outlineJson(text.slice(child.start, child.end));
    if (inner === undefined || inner.children.length < minItems) continue;
    candidates.push({
      open: child.start,
      close: child.end - 1,
      items: inner.children.map((span) => ({
        start: span.start + child.start,
        end: span.end + child.start,
      })),
    });
  }
  return candidates.length === 1 ? candidates[0] : undefined;
}

/**
 * `text` with only the items of `array` that `keep` holds, each as spelled, then the count
 * ` [k of n items shown]`; undefined when every item is kept. The part before the count is one
 * JSON document whenever `text` was.
 */
export function showItems(
  text: string,
  array: JsonItems,
  keep: (item: JsonSpan, position: number) => boolean,
): string | undefined {
  const { items } = array;
  const kept = items.filter(keep);
  if (kept.length === items.length) return undefined;
  const shown = [
    text.slice(0, array.open + 1).trim(),
    kept.map((item) => text.slice(item.start, item.end)).join(","),
    text.slice(array.close).trim(),
  ].join("");
  return `${shown} [${kept.length} of ${items.length} items shown]`;
}
