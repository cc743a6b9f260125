import { codeAt } from "../text/char-code.js";
/**
 * Cheap bounds of a text's o200k_base token count (§4 tokens), for decisions about outputs too
 * large to count exactly within the deadline.
 *
 * - Upper: a token spans at least one UTF-8 byte.
 * - Lower: a token spans at most 128 UTF-8 bytes (the longest o200k_base token), and a token
 *   never spans two pre-tokenizer pieces, so the pieces the text must split into
 *   (`minimumPieces`) are a lower bound too.
 */
export const LONGEST_TOKEN_BYTES = 128;

export interface TokenBounds {
  readonly lower: number;
  readonly upper: number;
}

export function tokenBounds(text: string): TokenBounds {
  const bytes = Buffer.byteLength(text, "utf8");
  return {
    lower: Math.max(Math.ceil(bytes / LONGEST_TOKEN_BYTES), minimumPieces(text)),
    upper: bytes,
  };
}

/** What a UTF-16 unit is to the pre-tokenizer, as far as minimumPieces needs to know. */
const SPACE = 0;
const DIGIT = 1;
const LETTER = 2;
/** ASCII punctuation or symbol: neither letter, digit nor white space. */
const MARK = 3;
/** Anything beyond ASCII that is not white space (it may be a letter, a digit or a symbol). */
const WIDE = 4;
const APOSTROPHE = 0x27;
const SLASH = 0x2f;
const isLineBreak = (code: number) => code === 0x0a || code === 0x0d;

/** The kind of each ASCII unit. */
const ASCII_KINDS = Uint8Array.from({ length: 0x80 }, (_, code) => {
  if (code >= 0x30 && code <= 0x39) return DIGIT;
  if ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) return LETTER;
  return isSpace(code) ? SPACE : MARK;
});

/**
 * Pieces the o200k pre-tokenizer must cut `text` into, at least; counting stops at `stopAt`.
 * Its pattern gives every piece white space only, digits only (at most three), or no digit; a
 * piece holding a letter ends with letters (or an English contraction's `'s`, `'ll`...). So a
 * new piece starts at each run of visible characters after white space (but a `/` right after a
 * line break, which a punctuation piece before may take along), wherever an ASCII digit
 * meets an ASCII non-digit, after every third digit of a run of ASCII digits that starts a
 * piece, and where an ASCII letter is followed by ASCII punctuation other than an apostrophe.
 * One pass, no allocation: linear in the text, and it ends early once `stopAt` is reached.
 */
export function minimumPieces(text: string, stopAt = Number.POSITIVE_INFINITY): number {
  let pieces = 0;
  let previous = SPACE;
  // Digits of the current run since its last certain piece start; -1: the run's pieces unknown.
  let digits = -1;
  for (let at = 0; at < text.length; at++) {
    const code = codeAt(text, at);
    const kind = code < 0x80 ? (ASCII_KINDS[code] as number) : isSpace(code) ? SPACE : WIDE;
    if (kind === SPACE) {
      previous = SPACE;
      continue;
    }
    // A punctuation piece takes the line breaks and slashes after it along: a `/` right after
    // a line break may continue the piece before it.
    let starts = previous === SPACE && (code !== SLASH || !isLineBreak(codeAt(text, at - 1)));
    if (kind === DIGIT) {
      if (previous === DIGIT) {
        if (digits >= 0 && ++digits === 3) {
          starts = true;
          digits = 0;
        }
      } else {
        starts ||= previous !== WIDE;
        digits = previous === WIDE ? -1 : 0;
      }
    } else if (previous === DIGIT) {
      starts ||= kind !== WIDE;
    } else if (previous === LETTER && kind === MARK) {
      starts ||= code !== APOSTROPHE;
    }
    previous = kind;
    if (starts && ++pieces >= stopAt) return pieces;
  }
  return pieces;
}

/** Whether a UTF-16 unit is white space as the pre-tokenizer's `\s` means it. */
function isSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
