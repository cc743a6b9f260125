import { clearMergeCache, countTokens, setMergeCacheSize } from "gpt-tokenizer/encoding/o200k_base";
import { codeAt, pointAt } from "../text/char-code.js";
import { SizedMemo } from "./sized-memo.js";
import { LONGEST_TOKEN_BYTES, minimumPieces } from "./token-bounds.js";

/**
 * Texts up to this many UTF-16 units are counted exactly wherever a count is asked for; a larger
 * one (a multi-megabyte build log) is counted exactly only where a guard cannot decide from its
 * bounds, and its reported count is an estimate (`estimate`).
 */
export const EXACT_CHARS = 64 * 1024;
/**
 * Characters of received texts one request counts exactly (TokenCounter.receive): 8 Mi, two
 * million tokens or so, more than any model reads in one request.
 */
export const REQUEST_EXACT_CHARS = 8 * 1024 * 1024;
/**
 * An estimate counts this many windows of WINDOW_CHARS units, spread evenly over the text: 4 Ki
 * units, within 2 % of the exact count on every kind of huge output the benchmarks make. Text
 * the tokenizer has few merges cached for costs about a microsecond a unit to count (base64, an
 * image or a bundle): windows of 1 Ki units took 20 ms a huge output.
 */
const WINDOWS = 16;
const WINDOW_CHARS = 256;

/** Longest run of one character class that is counted as a single pre-tokenizer piece. */
const RUN_CHUNK = 256;

/**
 * The character classes whose runs the o200k pre-tokenizer keeps as one piece however long they
 * are: letters (with their combining marks), punctuation and symbols, whitespace. Digits (and
 * anything else) end a run: the pre-tokenizer splits numbers into pieces of three.
 */
const OTHER = 1;
const LETTER = 2;
const SYMBOL = 3;
const SPACE = 4;
/** A combining mark continues the letter or symbol run it follows. */
const MARK = 5;

const LETTER_CHAR = /^\p{L}$/u;
const MARK_CHAR = /^\p{M}$/u;
const SPACE_CHAR = /^\s$/u;
const NUMBER_CHAR = /^\p{N}$/u;

/** Class of every code point met so far (0: not yet looked up); 1.1 MB, filled lazily. */
let classes: Uint8Array | undefined;

function classOf(codePoint: number): number {
  classes ??= new Uint8Array(0x110000);
  const known = classes[codePoint] as number;
  if (known !== 0) return known;
  const char = String.fromCodePoint(codePoint);
  const found = LETTER_CHAR.test(char)
    ? LETTER
    : MARK_CHAR.test(char)
      ? MARK
      : SPACE_CHAR.test(char)
        ? SPACE
        : NUMBER_CHAR.test(char)
          ? OTHER
          : SYMBOL;
  classes[codePoint] = found;
  return found;
}

/**
 * Special tokens' spellings (`<|endoftext|>`) are text like any other in a tool output (a
 * tokenizer's source, a model's transcript): counted as the model server encodes message
 * content, not refused.
 */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Entries of the tokenizer's merge cache (the byte-pair merges of pieces outside its
 * vocabulary). It evicts its oldest entry by a scan from the start of a Map, which costs as much
 * as the entries deleted so far: once full, counting text of many distinct pieces (base64, ids,
 * hashes) turned quadratic — 0.4 s for 1 MB of base64, 9 s for 2 MB. So it is never let fill: it
 * is cleared before the characters counted since it last was (more than its entries) could.
 */
const MERGE_CACHE_ENTRIES = 100_000;
setMergeCacheSize(MERGE_CACHE_ENTRIES);
/** Characters counted since the merge cache was cleared: at least the entries it holds. */
let uncleared = 0;
/**
 * A long text is counted in parts of about this many characters, each cut where the
 * pre-tokenizer starts a piece whatever came before it, so the parts count as the whole does.
 */
const PART_CHARS = 32 * 1024;
/** A part grows no longer than this without such a place: it is then cut where it stands. */
const MAX_PART_CHARS = MERGE_CACHE_ENTRIES - 4 * 1024;
const LINE_FEED = 0x0a;
const APOSTROPHE = 0x27;

/**
 * Whether the o200k pre-tokenizer starts a piece at a code point of class `own` after one of
 * class `previousOwn` (the code point `previous`), whatever comes before and after, so that a
 * text cut there counts as the whole does: a letter or digit after a line break; a digit after
 * a letter; a letter after a digit; punctuation or a symbol (not an apostrophe, which may end a
 * contraction: `it's`) after a letter or digit. No piece holding a letter or digit takes in
 * what follows it then, and the piece that starts there reads only what follows.
 */
function startsPiece(
  previous: number,
  previousOwn: number,
  codePoint: number,
  own: number,
): boolean {
  if (previous === LINE_FEED) return own === LETTER || own === OTHER;
  if (previousOwn === LETTER) return own === OTHER || (own === SYMBOL && codePoint !== APOSTROPHE);
  if (previousOwn === OTHER) return own === LETTER || (own === SYMBOL && codePoint !== APOSTROPHE);
  return false;
}

/** o200k_base tokens of one part, no longer than the merge cache holds. */
function countPart(text: string): number {
  if (uncleared + text.length > MERGE_CACHE_ENTRIES) {
    clearMergeCache();
    uncleared = 0;
  }
  uncleared += text.length;
  return countTokens(text, PLAIN_TEXT);
}

/**
 * o200k_base tokens of a text, in time linear in its length and with constant stack. Byte-pair
 * merging is quadratic in the length of a piece, so one run of a quarter million letters (a
 * base64 line of `A`s, a progress bar of `=`) would hold the thread for a minute. Such runs are
 * counted in pieces of RUN_CHUNK characters, which differs from the exact count by at most a
 * token per piece. A long text is counted in parts (countPart), each cut where a piece starts
 * whatever precedes it (startsPiece: after a line break, between a letter and a digit, before
 * punctuation that follows a letter or digit); one with no such place in MAX_PART_CHARS is cut
 * there, which may differ from the exact count by a token or two. Every other text, real tool
 * output among it, is counted exactly. The runs and places are found by one pass over the code
 * points (a pattern with an unbounded repeat overflows the regular-expression stack on a run of
 * a few million characters).
 */
export function countO200k(text: string): number {
  if (text.length < RUN_CHUNK) return countPart(text);
  let total = 0;
  let from = 0;
  let run = OTHER;
  let pieceStart = 0;
  let previous = -1;
  let previousOwn = SPACE;
  for (let at = 0; at < text.length; ) {
    const codePoint = pointAt(text, at) as number;
    const own = classOf(codePoint);
    const kind = own === MARK ? (run === SYMBOL ? SYMBOL : LETTER) : own;
    const partChars = at - from;
    if (kind !== run || kind === OTHER) {
      // Cut only where a code point starts: never between the halves of a surrogate pair.
      if (
        (partChars >= PART_CHARS && startsPiece(previous, previousOwn, codePoint, own)) ||
        partChars >= MAX_PART_CHARS
      ) {
        total += countPart(text.slice(from, at));
        from = at;
      }
      run = kind;
      pieceStart = at;
    } else if (at - pieceStart >= RUN_CHUNK || partChars >= MAX_PART_CHARS) {
      total += countPart(text.slice(from, at));
      from = at;
      pieceStart = at;
    }
    previous = codePoint;
    previousOwn = own;
    at += codePoint > 0xffff ? 2 : 1;
  }
  return from === 0 ? countPart(text) : total + countPart(text.slice(from));
}

/**
 * o200k_base token counts memoised by content (§4): agents re-send the same outputs every turn,
 * so a warm request counts only what is new. Keys are the texts themselves, bounded by their
 * total length.
 */
export class TokenCounter {
  #memo: SizedMemo<number>;
  /**
   * Estimates of texts over EXACT_CHARS, apart from the exact counts: a huge output's estimate
   * is asked for by the request's count, its guard and its written-back total in one request.
   */
  #estimates: SizedMemo<number>;
  readonly #exact: (text: string) => number;
  /** What one request received (`forRequest`); undefined for the counter requests share. */
  #request: Received | undefined;

  /**
   * `maxChars` bounds the texts held, exact counts and estimates together; `exact` counts one
   * text exactly (the tests count its calls).
   */
  constructor(maxChars = 64 * 1024 * 1024, exact: (text: string) => number = countO200k) {
    const sizeOf = (key: string) => key.length + 16;
    this.#memo = new SizedMemo(Math.floor(maxChars * 0.75), sizeOf);
    this.#estimates = new SizedMemo(Math.floor(maxChars * 0.25), sizeOf);
    this.#exact = exact;
  }

  /**
   * The counter of one request: this one's memos, and the counts of what it received, exact for
   * its first `exactChars` characters of texts (see `receive`).
   */
  forRequest(exactChars = REQUEST_EXACT_CHARS): TokenCounter {
    const counter = new TokenCounter(0, this.#exact);
    counter.#memo = this.#memo;
    counter.#estimates = this.#estimates;
    counter.#request = new Received(exactChars);
    return counter;
  }

  /**
   * The count to report for a text of the request as received, in the order received: exact for
   * a text of up to EXACT_CHARS, and held for the whole request (see `forRequest`), until the
   * request has counted REQUEST_EXACT_CHARS characters so; past that budget (thousands of logs
   * in one body, more than any model's window) an estimate from the tokens per character it
   * counted, and a guard decides from bounds; a huge text's estimate (`estimate`). The budget
   * is spent whether a count was memoised or not, so a body's counts never depend on what
   * other requests left in the memo.
   */
  receive(text: string): number {
    const request = this.#request;
    if (text.length > EXACT_CHARS || request === undefined) return this.estimate(text);
    const known = request.exact.get(text) ?? request.estimated.get(text);
    if (known !== undefined) return known;
    if (!request.spend(text.length)) return request.estimate(text);
    const tokens = this.count(text);
    request.counted(text, tokens);
    return tokens;
  }

  count(text: string): number {
    if (text.length === 0) return 0;
    const known = this.#known(text);
    if (known !== undefined) return known;
    const counted = this.#exact(text);
    this.#memo.set(text, counted);
    return counted;
  }

  /**
   * True when `text` has at least `limit` tokens. A token spans at least one UTF-8 byte and a
   * UTF-16 unit is at most three, so short texts are answered without counting; a text counted
   * before is answered from its count; any other is answered from its lower bound
   * (token-bounds.ts) when that suffices — a pass that stops once it reaches `limit`, a small
   * part of counting — and only the rest are counted, once and remembered. The texts a pipeline
   * asks about are mostly an earlier component's result (the passing tests of a test log
   * dropped, before the collapse): counted, such a text is counted for nothing.
   */
  atLeast(text: string, limit: number): boolean {
    if (limit <= 0) return true;
    if (text.length * 3 < limit) return false;
    const counted = this.#known(text);
    if (counted !== undefined) return counted >= limit;
    // A UTF-16 unit is at least one UTF-8 byte.
    if (Math.ceil(text.length / LONGEST_TOKEN_BYTES) >= limit) return true;
    if (minimumPieces(text, limit) >= limit) return true;
    return this.count(text) >= limit;
  }

  #known(text: string): number | undefined {
    return this.#request?.exact.get(text) ?? this.#memo.get(text);
  }

  /**
   * The token count to report for `text`: exact up to EXACT_CHARS units, else an estimate from
   * windows spread over it, scaled to its length and kept within its bounds, remembered apart
   * from exact counts (no guard ever reads an estimate as a count).
   */
  estimate(text: string): number {
    if (text.length <= EXACT_CHARS) return this.#request?.estimated.get(text) ?? this.count(text);
    const known = this.#estimates.get(text);
    if (known !== undefined) return known;
    const estimated = estimateTokens(text, this.#exact);
    this.#estimates.set(text, estimated);
    return estimated;
  }

  /**
   * The "strictly fewer tokens" guard (§4) for `after` replacing `before`, with the counts to
   * report. A huge `before`, or one received past the request's budget of exact counts
   * (`receive`), is not counted exactly: the guard is decided from its lower bound
   * against the upper bound of `after` (a collapse to a few lines) or, failing that, against
   * the exact count of `after` (the kept text, counted once and remembered), and its own count
   * is reported as an estimate. Only when its lower bound cannot decide are both counted.
   */
  compare(before: string, after: string): { before: number; after: number; fewer: boolean } {
    if (before.length > EXACT_CHARS || this.#request?.estimated.has(before)) {
      const afterUpper = Buffer.byteLength(after, "utf8");
      // One pass over `before`, stopping once it passes the upper bound of `after`; when it
      // does not, it counted every piece, so the same bound is decisive against any count of
      // `after` (which is at most its upper bound).
      const lower = Math.max(
        Math.ceil(before.length / LONGEST_TOKEN_BYTES),
        minimumPieces(before, afterUpper + 1),
      );
      let afterCount: number | undefined;
      if (lower > afterUpper) afterCount = this.estimate(after);
      else if (after.length < before.length) {
        const exact = this.count(after);
        if (lower > exact) afterCount = exact;
      }
      if (afterCount !== undefined) {
        const beforeCount = Math.max(this.estimate(before), afterCount + 1);
        return { before: beforeCount, after: afterCount, fewer: true };
      }
    }
    const counts = { before: this.count(before), after: this.count(after) };
    return { ...counts, fewer: counts.after < counts.before };
  }
}

/** The texts one request received, as TokenCounter.receive counted or estimated them. */
class Received {
  /**
   * Exact counts, held for the whole request whatever the memo lets go meanwhile: a body whose
   * outputs pass half the memo's budget would otherwise have each counted twice, once as
   * received and again by the guard of its change. The texts are the request's own, alive until
   * it ends: holding them costs no memory.
   */
  readonly exact = new Map<string, number>();
  /** Texts past the budget of exact counts, with the count reported: never read as counts. */
  readonly estimated = new Map<string, number>();
  #exactTokens = 0;
  #exactChars = 0;

  /** `left`: characters of received texts the request may still count exactly. */
  constructor(private left: number) {}

  /** Whether `chars` more may be counted exactly; once one text does not fit, none may. */
  spend(chars: number): boolean {
    if (chars > this.left) {
      this.left = 0;
      return false;
    }
    this.left -= chars;
    return true;
  }

  counted(text: string, tokens: number): void {
    this.exact.set(text, tokens);
    this.#exactTokens += tokens;
    this.#exactChars += text.length;
  }

  /** `text`'s tokens at the tokens per character counted so far, within its bounds. */
  estimate(text: string): number {
    const perChar = this.#exactChars === 0 ? 0.25 : this.#exactTokens / this.#exactChars;
    const estimated = Math.min(
      3 * text.length,
      Math.max(Math.ceil(text.length / LONGEST_TOKEN_BYTES), Math.round(text.length * perChar)),
    );
    this.estimated.set(text, estimated);
    return estimated;
  }
}

/** An estimate of the tokens of a long text (see TokenCounter.estimate). */
export function estimateTokens(text: string, exact: (text: string) => number = countO200k): number {
  const stride = Math.floor(text.length / WINDOWS);
  let sampledChars = 0;
  let sampledTokens = 0;
  for (let window = 0; window < WINDOWS; window++) {
    let start = window * stride;
    let end = Math.min(text.length, start + WINDOW_CHARS);
    // Never between the halves of a surrogate pair.
    if (isLowSurrogate(codeAt(text, start))) start++;
    if (isLowSurrogate(codeAt(text, end))) end--;
    const piece = text.slice(start, end);
    sampledChars += piece.length;
    sampledTokens += exact(piece);
  }
  const scaled = Math.round((sampledTokens * text.length) / Math.max(1, sampledChars));
  // Within the bounds of token-bounds.ts, taken from the length alone (a UTF-16 unit is one to
  // three UTF-8 bytes): no pass over the text, so an estimate costs its windows only.
  return Math.min(3 * text.length, Math.max(Math.ceil(text.length / LONGEST_TOKEN_BYTES), scaled));
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
