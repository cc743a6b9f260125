/**
 * The typed arrays a reader of long texts works in (hashes, marks and positions a line), kept
 * from one text to the next. Memory a process touches for the first time costs a page fault a
 * page (on a virtual machine about 10 µs, near 3 ms a megabyte), and a reading of a few hundred
 * thousand lines works in megabytes: made afresh for each text, its arrays cost more than the
 * reading itself.
 *
 * Each reader holds its own set (its arrays serve one call of it at a time and are read by no
 * one else), each array at most MAX_HELD units long; a longer one is made for its text alone.
 */
export const MAX_HELD = 512 * 1024;

export class WorkingArrays {
  readonly #ints: Int32Array[] = [];
  readonly #bytes: Uint8Array[] = [];

  /** Int32 array `slot` of `length` units, each `fill`. */
  ints(slot: number, length: number, fill = 0): Int32Array {
    let held = this.#ints[slot];
    if (held === undefined || held.length < length) {
      held = new Int32Array(length);
      if (length <= MAX_HELD) this.#ints[slot] = held;
      if (fill === 0) return held;
    }
    return held.subarray(0, length).fill(fill);
  }

  /** Uint8 array `slot` of `length` units, each 0. */
  bytes(slot: number, length: number): Uint8Array {
    let held = this.#bytes[slot];
    if (held === undefined || held.length < length) {
      held = new Uint8Array(length);
      if (length <= MAX_HELD) this.#bytes[slot] = held;
      return held;
    }
    return held.subarray(0, length).fill(0);
  }
}
