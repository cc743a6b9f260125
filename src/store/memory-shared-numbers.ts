import type { SharedNumberSwap } from "./types.js";

interface Held {
  readonly value: number;
  /** Clock time from which the number counts as unset. */
  readonly expiresAt: number;
}

/**
 * The memory store's shared numbers (src/store/types.ts `sharedNumber`): one process is the whole
 * deployment, and a JavaScript thread runs each compare-and-set to its end before any other, so
 * a plain map is atomic. Each number expires `ttlMs` after it was last set.
 */
export class MemorySharedNumbers {
  readonly #numbers = new Map<string, Held>();

  constructor(private readonly clock: () => number) {}

  get(name: string): number | undefined {
    const held = this.#numbers.get(name);
    if (held === undefined) return undefined;
    if (this.clock() < held.expiresAt) return held.value;
    this.#numbers.delete(name);
    return undefined;
  }

  swap(name: string, expected: number | undefined, next: number, ttlMs: number): SharedNumberSwap {
    const current = this.get(name);
    if (current !== expected) return { swapped: false, current };
    this.#numbers.set(name, { value: next, expiresAt: this.clock() + ttlMs });
    return { swapped: true, current: next };
  }

  clear(): void {
    this.#numbers.clear();
  }
}
