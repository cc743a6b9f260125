/**
 * A memo keyed by text and bounded by size, for the per-request lookups of the warm path (token
 * counts, content ids, component results): two generations of plain Maps. A lookup reads the
 * young generation, else the old one and brings the entry young; when the young generation
 * passes half the budget it becomes the old one and the previous old one is dropped. What an
 * agent re-sends every turn stays; what went unused for a whole generation goes. Both
 * generations together stay within `maxSize`, and a hit costs one or two Map lookups, a small
 * fraction of an LRU list's bookkeeping on every request's every string.
 */
export class SizedMemo<V> {
  readonly #half: number;
  #young = new Map<string, V>();
  #old = new Map<string, V>();
  #youngSize = 0;

  constructor(
    maxSize: number,
    private readonly sizeOf: (key: string, value: V) => number,
  ) {
    this.#half = Math.floor(maxSize / 2);
  }

  get(key: string): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#admit(key, old);
    }
    return old;
  }

  /** Remembers `value`; one larger than half the budget is not kept. */
  set(key: string, value: V): void {
    const previous = this.#young.get(key);
    if (previous !== undefined) this.#youngSize -= this.sizeOf(key, previous);
    else this.#old.delete(key);
    this.#young.delete(key);
    this.#admit(key, value);
  }

  /**
   * Changes the value held for `key` in place by `change` and counts it again at its new size
   * (read before and after, so `sizeOf` must be cheap): a map that gains an entry stays
   * accounted for without being copied. False, and `change` is not called, when nothing is held.
   * A value grown past half the budget is dropped.
   */
  update(key: string, change: (value: V) => void): boolean {
    const young = this.#young.get(key);
    const value = young ?? this.#old.get(key);
    if (value === undefined) return false;
    if (young !== undefined) {
      this.#young.delete(key);
      this.#youngSize -= this.sizeOf(key, value);
    } else {
      this.#old.delete(key);
    }
    change(value);
    this.#admit(key, value);
    return true;
  }

  /** Entries held in both generations. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  #admit(key: string, value: V): void {
    const size = this.sizeOf(key, value);
    if (size > this.#half) return;
    if (this.#youngSize + size > this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
      this.#youngSize = 0;
    }
    this.#young.set(key, value);
    this.#youngSize += size;
  }
}
