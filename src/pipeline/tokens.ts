import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { SizedMemo } from "./sized-memo.js";

/** Longest run of one character class that is counted as a single pre-tokenizer piece. */
const RUN_CHUNK = 256;
/**
 * Runs the o200k pre-tokenizer keeps as one piece however long they are: letters, punctuation,
 * whitespace. Each alternative starts only where its run starts, so the scan stays linear.
 */
const LONG_RUN =
  /(?<![\p{L}\p{M}])[\p{L}\p{M}]{256,}|(?<![^\s\p{L}\p{N}])[^\s\p{L}\p{N}]{256,}|(?<!\s)\s{256,}/gu;

/**
 * o200k_base tokens of a text, in time linear in its length. Byte-pair merging is quadratic in
 * the length of a piece, so one run of a quarter million letters (a base64 line of `A`s, a
 * progress bar of `=`) would hold the event loop for a minute. Such runs are counted in pieces of
 * RUN_CHUNK characters, which differs from the exact count by at most a token per piece; every
 * other text, real tool output among it, is counted exactly.
 */
export function countO200k(text: string): number {
  if (text.length < RUN_CHUNK) return countTokens(text);
  let total = 0;
  let from = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    const end = run.index + run[0].length;
    for (let cut = run.index + RUN_CHUNK; cut < end; cut += RUN_CHUNK) {
      // Never between the two halves of a surrogate pair.
      const at = isHighSurrogate(text.charCodeAt(cut - 1)) ? cut + 1 : cut;
      total += countTokens(text.slice(from, at));
      from = at;
    }
  }
  return from === 0 ? countTokens(text) : total + countTokens(text.slice(from));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * o200k_base token counts memoised by content (§4): agents re-send the same outputs every turn,
 * so a warm request counts only what is new. Keys are the texts themselves, bounded by their
 * total length.
 */
export class TokenCounter {
  readonly #memo: SizedMemo<number>;

  constructor(maxChars = 64 * 1024 * 1024) {
    this.#memo = new SizedMemo(maxChars, (key) => key.length + 16);
  }

  count(text: string): number {
    if (text.length === 0) return 0;
    const known = this.#memo.get(text);
    if (known !== undefined) return known;
    const counted = countO200k(text);
    this.#memo.set(text, counted);
    return counted;
  }

  /**
   * True when `text` has at least `limit` tokens. A token spans at least one UTF-8 byte and a
   * UTF-16 unit is at most three, so short texts are answered without counting; the rest are
   * counted once and remembered, because agents re-send the same outputs every turn.
   */
  atLeast(text: string, limit: number): boolean {
    if (limit <= 0) return true;
    if (text.length * 3 < limit) return false;
    return this.count(text) >= limit;
  }
}
