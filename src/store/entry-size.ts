import { StoreCapacityError, StoreEntryTooLargeError } from "../errors/store-error.js";
import type { StashEntry } from "./types.js";

/**
 * What the memory store counts for each entry beyond the bytes of its value, key and owner ids:
 * the cache's node, the entry object, its owner set and quota record. Counted in `max_bytes`,
 * so that bound holds for memory, not only for payload.
 */
export const ENTRY_OVERHEAD_BYTES = 256;

/** Exact UTF-8 size of a stashed value: what it occupies on the wire and, roughly, in memory. */
export function valueBytes(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

/**
 * Checks a whole put before anything is written, so a put is all or nothing: rejects with
 * StoreEntryTooLargeError when one value exceeds `maxEntryBytes`, and with StoreCapacityError when
 * the put alone would overflow `maxBytes` (keeping it would evict its own entries).
 */
export function checkPut(
  entries: readonly StashEntry[],
  limits: { readonly maxEntryBytes: number; readonly maxBytes?: number },
  /** The values' sizes when known (valueBytes of each), in the order of `entries`. */
  sizes?: readonly number[],
): number {
  let total = 0;
  for (const [index, { key, value }] of entries.entries()) {
    const bytes = sizes?.[index] ?? valueBytes(value);
    if (bytes > limits.maxEntryBytes) {
      throw new StoreEntryTooLargeError(key, bytes, limits.maxEntryBytes);
    }
    total += bytes;
  }
  if (limits.maxBytes !== undefined && total > limits.maxBytes) {
    throw new StoreCapacityError(`${total} bytes in one put, more than store.max_bytes`);
  }
  return total;
}
