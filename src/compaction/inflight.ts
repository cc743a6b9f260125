/**
 * Admission by bytes in flight (`limits.inflight_bytes`, §10): the bodies being compacted or
 * rehydrated at once hold at most `limit` bytes between them. A body that does not fit is not
 * admitted (its caller answers at once without the work), so a burst of large bodies costs
 * their bytes and no more.
 */
export class InflightBytes {
  #bytes = 0;

  constructor(readonly limit: number) {}

  /** Bytes admitted and not yet released. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Reserves `size` bytes: the release function, or undefined when they do not fit. */
  admit(size: number): (() => void) | undefined {
    if (this.#bytes + size > this.limit) return undefined;
    this.#bytes += size;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#bytes -= size;
    };
  }
}
