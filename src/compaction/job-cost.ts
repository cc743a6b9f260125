import { JSON_DOCUMENT_MAX_CHARS } from "../content/json-limit.js";
import { codeAt } from "../text/char-code.js";
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
  return FIXED + perByte * input.length + perQuote * valueQuotes(input);
}

/**
 * The estimate when it exceeds `budget`, else undefined. A body that fits even were every byte
 * a value quote (the most heapEstimate can count) is not read: a pass over each byte costs a
 * body of a megabyte more than some of its compaction steps.
 */
export function overBudget(
  kind: keyof typeof COST,
  input: JobInput,
  budget: number,
): number | undefined {
  const { perByte, perQuote } = COST[kind];
  if (FIXED + (perByte + perQuote) * input.length <= budget) return undefined;
  const estimate = heapEstimate(kind, input);
  return estimate > budget ? estimate : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/**
 * JSON text of the longest string whose escaped quotes may become values: a string the pipeline
 * may parse as a JSON document (content/json-limit.ts), each of its UTF-16 units escaped as
 * at most six bytes (`\uXXXX`).
 */
const PARSED_STRING_BYTES = 6 * JSON_DOCUMENT_MAX_CHARS;

/**
 * The `"` characters of a body that stand for values: two per string value or key, and one per
 * escaped quote of a string short enough to be parsed as a JSON document of its own. The
 * escaped quotes of a longer string (a multi-megabyte JSON-lines log) are characters of one
 * string, which the per-byte cost covers.
 */
function valueQuotes(input: JobInput): number {
  const counter = new QuoteCounter();
  if (typeof input === "string") {
    for (let at = 0; at < input.length; at++) counter.add(codeAt(input, at), at);
  } else {
    for (let at = 0; at < input.length; at++) counter.add(input[at] as number, at);
  }
  return counter.total();
}

/**
 * Counts value quotes in one pass, from the parity of the backslashes before each quote: a body
 * of a JSON-lines log has millions of escaped quotes, too many for a search call each.
 */
class QuoteCounter {
  #count = 0;
  #opened = -1;
  #escaped = 0;
  #backslashes = 0;

  add(code: number, at: number): void {
    if (code === BACKSLASH) {
      this.#backslashes++;
      return;
    }
    const odd = (this.#backslashes & 1) === 1;
    this.#backslashes = 0;
    if (code !== QUOTE) return;
    if (odd) {
      this.#escaped++;
      return;
    }
    this.#count++;
    if (this.#opened < 0) {
      this.#opened = at;
      return;
    }
    if (at - this.#opened <= PARSED_STRING_BYTES) this.#count += this.#escaped;
    this.#opened = -1;
    this.#escaped = 0;
  }

  /** The value quotes; an unterminated string's escaped quotes count as values. */
  total(): number {
    return this.#count + this.#escaped;
  }
}

/**
 * Heap a worker may give one job: 90 % of its heap limit (V8 needs room to collect), less what
 * the worker held once loaded and the whole memo budget (its memos may fill meanwhile).
 */
export function jobHeapBudget(heapLimit: number, loadedHeap: number, memoBytes: number): number {
  return Math.floor(heapLimit * 0.9) - loadedHeap - memoBytes;
}
