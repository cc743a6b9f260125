import type { JobInput } from "./job.js";

/**
 * Heap one job needs at most, estimated from its body before it is parsed. A thread that runs
 * out of heap inside JSON.parse takes the whole process down (V8 cannot stop the parse to end
 * only that thread), so a worker refuses a job whose estimate does not fit its heap instead.
 *
 * The cost has two parts: the text and what is built per byte of it (the decoded string, the
 * parsed values, spans), and what is built per string value (one parsed string, a span, a
 * transcript entry; keys included). Measured peaks of the built-in pipeline on bodies at the
 * body limit, from plain build logs to 874k one-word messages in 32 MiB, are 6.5 bytes per byte
 * and 31 per quote character when compacting, 2 and 52 when rehydrating (docs/reliability.md);
 * the coefficients below are those with a margin of about half again, plus a fixed allowance.
 */
const COST = {
  compact: { perByte: 10, perQuote: 48 },
  rehydrate: { perByte: 4, perQuote: 80 },
} as const;
const FIXED = 32 * 1024 * 1024;

export function heapEstimate(kind: keyof typeof COST, input: JobInput): number {
  const { perByte, perQuote } = COST[kind];
  return FIXED + perByte * input.length + perQuote * quotes(input);
}

/** The `"` characters of a body: two per string value or key, and one per escaped quote. */
function quotes(input: JobInput): number {
  let count = 0;
  if (typeof input === "string") {
    for (let at = input.indexOf('"'); at >= 0; at = input.indexOf('"', at + 1)) count++;
    return count;
  }
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  for (let at = bytes.indexOf(34); at >= 0; at = bytes.indexOf(34, at + 1)) count++;
  return count;
}

/**
 * Heap a worker may give one job: 90 % of its heap limit (V8 needs room to collect), less what
 * the worker held once loaded and the whole memo budget (its memos may fill meanwhile).
 */
export function jobHeapBudget(heapLimit: number, loadedHeap: number, memoBytes: number): number {
  return Math.floor(heapLimit * 0.9) - loadedHeap - memoBytes;
}
