/**
 * A small seeded pseudo-random generator (mulberry32): the generated corpus is a pure function of
 * its seed, so every run of the benchmark and the tests sees the same bytes.
 */
export class Random {
  #state: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("cannot pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A fixed-width lowercase hex string, e.g. for commit ids. */
  hex(length: number): string {
    let text = "";
    while (text.length < length) text += this.int(0, 15).toString(16);
    return text;
  }

  /** An independent generator derived from this one, so one stream's length never shifts another. */
  fork(): Random {
    return new Random(this.int(0, 0xffffffff));
  }
}
