import { codeAt } from "../text/char-code.js";
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from "./json-chars.js";
import { closingQuote } from "./json-string.js";

/** A string value of a JSON document, located in its text: the literal's span, quotes included. */
export interface JsonStringValue {
  readonly start: number;
  readonly end: number;
}

/**
 * The string values of a JSON document (`text`, which JSON.parse accepts) in order, at any depth:
 * every string literal that is not an object's key. One linear pass; the values are not decoded
 * (a caller decodes those it needs: `JSON.parse(text.slice(start, end))`).
 */
export function jsonStringValues(text: string): JsonStringValue[] {
  const values: JsonStringValue[] = [];
  // Whether each open container is an object, innermost last.
  const objects: boolean[] = [];
  let key = false;
  for (let at = 0; at < text.length; ) {
    const code = codeAt(text, at);
    if (code === QUOTE) {
      const end = closingQuote(text, at) + 1;
      if (end === 0) throw new SyntaxError("unterminated string");
      if (key) key = false;
      else values.push({ start: at, end });
      at = end;
      continue;
    }
    if (code === OPEN_BRACE) {
      objects.push(true);
      key = true;
    } else if (code === OPEN_BRACKET) {
      objects.push(false);
      key = false;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      objects.pop();
      key = false;
    } else if (code === COMMA) {
      key = objects.at(-1) === true;
    } else if (code === COLON) {
      key = false;
    }
    at++;
  }
  return values;
}
