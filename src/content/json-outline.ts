import { codeAt } from "../text/char-code.js";
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isJsonSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  skipJsonSpace,
} from "../wire/json-chars.js";
import { closingQuote } from "../wire/json-string.js";

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
  readonly children: readonly JsonChild[];
}

/** A value's text is `text.slice(start, end)`, surrounding whitespace excluded. */
export interface JsonSpan {
  readonly start: number;
  readonly end: number;
}

/** A child of the root; a member value of a root object that is an array lists its items. */
export interface JsonChild extends JsonSpan {
  readonly items?: readonly JsonSpan[];
}

/** Characters that may stand outside strings: whitespace, punctuation, numbers, literals. */
const BARE_CHARS = " \t\r\n,:-+.0123456789eEtrufalsn";
const BARE = new Uint8Array(128);
for (const char of BARE_CHARS) BARE[codeAt(char, 0)] = 1;

/**
 * From where it starts, a run of BARE characters and of whole strings, each closing where
 * closingQuote finds it closes: one match steps over what the scan would read a character or a
 * string at a time. At most 16 strings a match and 16,384 escapes a string (escaped JSON of
 * 80 kB), so that the backtracking a match keeps stays bounded (as ESCAPED_RUN's): a longer run
 * ends and the next one starts, a string of more escapes ends the run before it and is left to
 * closingQuote.
 */
const bare = `[${BARE_CHARS.replace("-", "\\-")}]*`;
const DEEP_RUN = new RegExp(
  `${bare}(?:"[^"\\\\]*(?:\\\\[\\s\\S][^"\\\\]*){0,16384}"${bare}){0,16}`,
  "y",
);

/**
 * The values of one container being read: the root (depth 1), or an array member of a root
 * object (depth 2). `start` is where the current value began (-1: none yet).
 */
class Level {
  readonly values: JsonChild[] = [];
  start = -1;
  end = -1;
  items: JsonSpan[] | undefined;

  constructor(readonly object: boolean) {}

  /** A value's first character at `at`, or more of it up to `end`. */
  extend(at: number, end: number): void {
    if (this.start < 0) this.start = at;
    this.end = end;
  }

  /** The value ends at a comma or the closing bracket; false when there was none. */
  push(): boolean {
    if (this.start < 0) return false;
    this.values.push(
      this.items === undefined
        ? { start: this.start, end: this.end }
        : { start: this.start, end: this.end, items: this.items },
    );
    this.start = -1;
    this.items = undefined;
    return true;
  }
}

/**
 * The last outline read: a huge output is outlined by its classification, by the component that
 * shortens it and by the fidelity check of that change, one after the other.
 */
let last: { readonly text: string; readonly outline: JsonOutline | undefined } | undefined;

/** The outline of `text` as one JSON object or array, or undefined when it is not one. */
export function outlineJson(text: string): JsonOutline | undefined {
  if (last !== undefined && last.text.length === text.length && last.text === text) {
    return last.outline;
  }
  const outline = readOutline(text);
  last = { text, outline };
  return outline;
}

function readOutline(text: string): JsonOutline | undefined {
  const open = skipJsonSpace(text, 0);
  const rootCode = codeAt(text, open);
  if (rootCode !== OPEN_BRACE && rootCode !== OPEN_BRACKET) return undefined;
  const root = new Level(rootCode === OPEN_BRACE);
  // The array member of a root object being read, at depth 2.
  let member: Level | undefined;
  let depth = 0;
  let close = -1;
  // Where the last run stopped: a string there is left to closingQuote, not read again.
  let stopped = -1;
  for (let at = open; at < text.length; at++) {
    const code = codeAt(text, at);
    const level = depth === 1 ? root : depth === 2 ? member : undefined;
    // Most of a document lies within the items: there only brackets count, and strings are
    // read whole. (Outside the root, the only character read is its opening bracket.)
    if (
      level === undefined &&
      at !== stopped &&
      (code === QUOTE || (code < 128 && BARE[code] === 1))
    ) {
      DEEP_RUN.lastIndex = at;
      DEEP_RUN.test(text);
      stopped = DEEP_RUN.lastIndex;
      if (stopped > at) {
        at = stopped - 1;
        continue;
      }
    }
    if (code === QUOTE) {
      const end = closingQuote(text, at);
      if (end < 0) return undefined;
      if (level !== undefined && !(level.object && isKey(text, end))) level.extend(at, end + 1);
      at = end;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      level?.extend(at, at + 1);
      depth++;
      if (depth === 2 && root.object && code === OPEN_BRACKET) member = new Level(false);
      continue;
    }
    if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth < 0) return undefined;
      if (depth === 1) {
        root.end = at + 1;
        if (member !== undefined) {
          member.push();
          root.items = member.values;
          member = undefined;
        }
      } else if (depth === 2 && member !== undefined) {
        member.end = at + 1;
      }
      if (depth === 0) {
        if ((code === CLOSE_BRACKET) === root.object) return undefined;
        root.push();
        close = at;
        break;
      }
      continue;
    }
    if (code >= 128 || BARE[code] !== 1) return undefined;
    if (level === undefined) continue;
    if (code === COMMA) {
      if (!level.push()) return undefined;
    } else if (code === COLON) {
      if (!level.object) return undefined;
    } else if (!isJsonSpace(code)) {
      // A number or literal.
      level.extend(at, at + 1);
    }
  }
  if (close < 0) return undefined;
  if (skipJsonSpace(text, close + 1) < text.length) return undefined;
  return { open, close, root: root.object ? "object" : "array", children: root.values };
}

/** Whether the string ending at `end` is an object key (a colon follows it). */
function isKey(text: string, end: number): boolean {
  return codeAt(text, skipJsonSpace(text, end + 1)) === COLON;
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
    if (child.items === undefined || child.items.length < minItems) continue;
    candidates.push({ open: child.start, close: child.end - 1, items: child.items });
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
