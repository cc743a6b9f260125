import { codeAt } from "../text/char-code.js";
import { BACKSLASH, QUOTE } from "./json-chars.js";

/** Escaped quotes met in one string before it is read as dense with escapes. */
const DENSE_ESCAPES = 8;
/**
 * Over a run of characters and escapes, at most 256 escapes a match: the backtracking a match
 * keeps is bounded whatever the string's length (an unbounded repeat overflows the
 * regular-expression stack on a string of a few million escapes).
 */
const ESCAPED_RUN = /[^"\\]*(?:\\[\s\S][^"\\]*){0,256}/y;

/**
 * The offset of the quote that closes the JSON string whose opening quote is at `open`, or -1
 * when it never closes. Most strings are found by searching for each quote and counting the
 * backslashes before it. A string of escaped JSON (a JSON-lines log or an API dump as a tool
 * output) holds an escaped quote every few characters: past the first few, it is read by a
 * pattern that steps over many escapes a match, about twice as fast over a megabyte.
 */
export function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (let escaped = 0; escaped < DENSE_ESCAPES; escaped++) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let back = quote - 1;
    while (codeAt(text, back) === BACKSLASH) back--;
    if ((quote - 1 - back) % 2 === 0) return quote;
    from = quote + 1;
  }
  for (;;) {
    ESCAPED_RUN.lastIndex = from;
    ESCAPED_RUN.test(text);
    from = ESCAPED_RUN.lastIndex;
    const code = codeAt(text, from);
    if (code === QUOTE) return from;
    // Stopped at the bound, before an escape: read on; else the text ended inside the string.
    if (code !== BACKSLASH || from + 1 >= text.length) return -1;
  }
}
