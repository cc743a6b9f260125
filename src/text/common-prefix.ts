import { codeAt } from "./char-code.js";

/** Below this many characters the difference is found one unit at a time. */
const NARROW = 256;

/**
 * How many leading UTF-16 units `a` and `b` share. Halves of the remaining range are compared by
 * the engine's own string comparison (a block compare, many times faster than a loop over the
 * units), so two bodies that share most of their bytes (a warm turn and the one before it) are
 * told apart in about two passes of a native compare; the loop runs only within the last few
 * hundred units.
 */
export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  if (a.slice(0, limit) === b.slice(0, limit)) return limit;
  let low = 0;
  let high = limit;
  while (high - low > NARROW) {
    const middle = (low + high) >>> 1;
    if (a.slice(low, middle) === b.slice(low, middle)) low = middle;
    else high = middle;
  }
  while (low < high && codeAt(a, low) === codeAt(b, low)) low++;
  return low;
}
