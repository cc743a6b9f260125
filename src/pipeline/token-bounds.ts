/**
 * Cheap bounds of a text's o200k_base token count (§4 tokens), for decisions about outputs too
 * large to count exactly within the deadline.
 *
 * - Upper: a token spans at least one UTF-8 byte.
 * - Lower: a token spans at most 128 UTF-8 bytes (the longest o200k_base token), and the
 *   pre-tokenizer never joins the visible characters of two lines into one piece (a piece may
 *   end in line breaks, never continue past them), so every line with a visible character
 *   starts at least one token of its own.
 */
export const LONGEST_TOKEN_BYTES = 128;

export interface TokenBounds {
  readonly lower: number;
  readonly upper: number;
}

export function tokenBounds(text: string): TokenBounds {
  const bytes = Buffer.byteLength(text, "utf8");
  return {
    lower: Math.max(Math.ceil(bytes / LONGEST_TOKEN_BYTES), visibleLines(text)),
    upper: bytes,
  };
}

/**
 * Lines (split at `\n`) holding a character that is not white space (`\s`); counting stops at
 * `stopAt`.
 */
export function visibleLines(text: string, stopAt = Number.POSITIVE_INFINITY): number {
  let lines = 0;
  let start = 0;
  while (start <= text.length && lines < stopAt) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    for (let at = start; at < end; at++) {
      if (!isSpace(text.charCodeAt(at))) {
        lines++;
        break;
      }
    }
    start = end + 1;
  }
  return lines;
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
