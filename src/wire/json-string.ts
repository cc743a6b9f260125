import { codeAt } from "../text/char-code.js";
import { BACKSLASH, QUOTE } from "./json-chars.js";

/**
 * Escapes met in one string (escaped quotes for closingQuote, close together for
 * hasUnusualEscape) before it is read as dense with escapes.
 */
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

/**
 * A run of characters and escapes JSON.stringify writes itself (a short escape, or `\u00XX` for
 * a control character without one, in lower-case hex), at most 256 escapes a match (as
 * ESCAPED_RUN). Any other escape character is read as the scan reads it: only `\/` and `\u`
 * end a run.
 */
const OWN_ESCAPED_RUN = /[^\\]*(?:\\(?:[^/u]|u00(?:0[0-7bef]|1[0-9a-f]))[^\\]*){0,256}/y;

/** Escapes closer together than this many characters are escaped JSON (see hasUnusualEscape). */
const DENSE_GAP = 32;

/**
 * Whether the JSON string literal `raw` spells a character as JSON.stringify would not: `\/`,
 * or a `\u` escape other than its own, which it writes only for the control characters without
 * a short escape (`\u001b`, lower-case hex). Its lone surrogates count as unusual here too: a
 * literal holding one is checked the slow way. Without an unusual escape, the literal is
 * exactly JSON.stringify's spelling of its value (valid JSON has no other way to write one),
 * so a terminal log full of `\u001b` needs no second parse. Escapes are found by searching for
 * each backslash; past a few close together (escaped JSON, a coloured log), by a pattern that
 * steps over many escapes a match, about twice as fast there.
 */
export function hasUnusualEscape(raw: string): boolean {
  let close = 0;
  for (let at = raw.indexOf("\\"); at >= 0; ) {
    const escaped = codeAt(raw, at + 1);
    if (escaped === SLASH) return true;
    if (escaped === LETTER_U && !isOwnControlEscape(raw, at + 2)) return true;
    const next = raw.indexOf("\\", at + 2);
    close = next >= 0 && next - at < DENSE_GAP ? close + 1 : 0;
    if (close < DENSE_ESCAPES) {
      at = next;
      continue;
    }
    // The run ends at the end of the literal, or before an escape: one JSON.stringify would
    // not write (looked at above), or one of its own at the bound of a match (read on).
    close = 0;
    OWN_ESCAPED_RUN.lastIndex = next;
    OWN_ESCAPED_RUN.test(raw);
    at = OWN_ESCAPED_RUN.lastIndex;
    if (at >= raw.length) return false;
  }
  return false;
}

const SLASH = 0x2f;
const LETTER_U = 0x75;
const DIGIT_0 = 0x30;

/**
 * Whether the four hex digits at `at` spell a control character as JSON.stringify writes it:
 * `00`, then its two digits in lower case.
 */
function isOwnControlEscape(raw: string, at: number): boolean {
  if (codeAt(raw, at) !== DIGIT_0 || codeAt(raw, at + 1) !== DIGIT_0) return false;
  const high = codeAt(raw, at + 2) - DIGIT_0;
  const low = lowerHex(codeAt(raw, at + 3));
  if ((high !== 0 && high !== 1) || low < 0) return false;
  const code = high * 16 + low;
  // \b \t \n \f \r have two-character escapes of their own.
  return code !== 0x08 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d;
}

/** The value of a lower-case hex digit, or -1. */
function lowerHex(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x61 + 10;
  return -1;
}
