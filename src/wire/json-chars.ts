import { codeAt } from "../text/char-code.js";

/** Character codes of JSON's structure, for scanners that read a text without parsing it. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

/** Whether a UTF-16 unit is JSON whitespace: space, tab, line feed, carriage return. */
export function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The offset of the first character at or after `at` that is not JSON whitespace. */
export function skipJsonSpace(text: string, at: number): number {
  let next = at;
  while (isJsonSpace(codeAt(text, next))) next++;
  return next;
}
