import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { LRUCache } from "lru-cache";

/**
 * o200k_base token counts memoised by content (§4): agents re-send the same outputs every turn,
 * so a warm request counts only what is new. Keys are the texts themselves, bounded by their
 * total length.
 */
export class TokenCounter {
  readonly #memo: LRUCache<string, number>;

  constructor(maxChars = 64 * 1024 * 1024) {
    this.#memo = new LRUCache({ maxSize: maxChars, sizeCalculation: (_, key) => key.length || 1 });
  }

  count(text: string): number {
    if (text.length === 0) return 0;
    const known = this.#memo.get(text);
    if (known !== undefined) return known;
    const counted = countTokens(text);
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
