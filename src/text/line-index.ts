import { codeAt, isBlankCode } from "./char-code.js";
import { LastRead, LONG_TEXT_CHARS } from "./last-read.js";
import { countLines, linesAtRate } from "./lines.js";
import { WorkingArrays } from "./working-arrays.js";

/**
 * The lines of a text (the text split on `\n`, as `split` does) read once, without a string for
 * each: where each starts, which of them are equal, how many non-blank characters each holds,
 * and which of them a pattern finds. An output of a million short lines (`seq`, a counter) is
 * read in one pass over its characters, where a million strings, and a map of them, took seconds;
 * a line is made a string only when it is kept or read by a pattern of its own.
 *
 * The components that read an output line by line (extract, linecap) read one text in turn, so
 * the index of the last long text is remembered (held weakly: a log of megabytes is not kept
 * beyond its request). A reader that needs only where lines start, a final newline starting
 * none (the records of a table or YAML document), reads `LineStarts` (text/lines.ts): no hash,
 * no count a line.
 *
 * The index of a long text is read in arrays kept from one long text to the next (see
 * WorkingArrays: a few hundred thousand lines are megabytes of starts and ids, which cost more
 * to touch afresh than to read), so it holds until the next long text is indexed: a reader reads
 * the index it asked for within one call, and never keeps it. Reading one after that throws.
 */
export interface LineIndex {
  readonly text: string;
  /** Number of lines: one more than the text's `\n`s. */
  readonly count: number;
  /** Line `i` is `text.slice(starts[i], starts[i + 1] - 1)`; `starts[count]` is `text.length + 1`. */
  readonly starts: Int32Array;
  /** Equal lines have equal ids, numbered from 0 in the order they first occur. */
  readonly ids: Int32Array;
  /** How many distinct lines the text has (one more than the largest id). */
  readonly distinct: number;
  /** Non-blank characters (`\S`) of each line, counted up to NON_BLANK_CAP. */
  readonly nonBlank: Uint8Array;
  /** Which lines each pattern finds, by `source/flags` (linesMatching). */
  readonly matched: Map<string, Uint8Array>;
  /** Its arrays are the kept ones (a long text's): it holds until the next long text's index. */
  readonly kept: boolean;
}

/** Non-blank characters of a line are counted up to this many: no reader needs more. */
export const NON_BLANK_CAP = 255;

const NEWLINE = 0x0a;
/** FNV-1a, 32 bits, over UTF-16 units. */
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

const lastIndex = new LastRead<LineIndex>(LONG_TEXT_CHARS);

/** What a reading works in, beside what it returns: see WorkingArrays. */
const working = new WorkingArrays();
const HASHES = 0;
const TABLE = 1;
const AGAIN = 0;
const ONCE = 1;
const TWICE = 2;
/** Lines not equal to the one before them are few when at most one in this many. */
const FEW_FRESH = 8;

/** The arrays of the last long text's index, read again for the next long text's. */
const kept = new WorkingArrays();
const STARTS = 0;
const IDS = 1;
const NON_BLANK = 0;
/** Patterns' findings (linesMatching), in the order asked; a pattern past them is given its own. */
const MATCHED = [1, 2, 3, 4];
/** The index whose arrays the kept ones are now. */
let keptBy: LineIndex | undefined;

/** The lines of `text`, read once; valid until the next long text is indexed (see above). */
export function lineIndexOf(text: string): LineIndex {
  return lastIndex.read(text, "", () => build(text, text.length >= LONG_TEXT_CHARS));
}

/** Line `line` of the index, as a string. */
export function lineAt(index: LineIndex, line: number): string {
  live(index);
  return index.text.slice(index.starts[line] as number, (index.starts[line + 1] as number) - 1);
}

/** Characters of line `line`, its `\n` not counted. */
export function lineLength(index: LineIndex, line: number): number {
  return (index.starts[line + 1] as number) - (index.starts[line] as number) - 1;
}

/** Throws for an index whose arrays another long text's index has taken over. */
function live(index: LineIndex): void {
  if (index.kept && index !== keptBy) {
    throw new Error("a line index was read after the next long text was indexed");
  }
}

/**
 * For each line, 1 when `pattern` finds something in it: one search of the whole text, each line
 * read at most once. Only for a pattern that reads within one line — no match holds a `\n`, and
 * nothing around a match (`^`, `$`, lookarounds) is read across one — so that it finds a match in
 * the text where, and only where, it finds one in that line alone.
 */
export function linesMatching(index: LineIndex, pattern: RegExp): Uint8Array {
  live(index);
  const key = `${pattern.source}/${pattern.flags}`;
  const known = index.matched.get(key);
  if (known !== undefined) return known;
  const { text, starts } = index;
  const slot = MATCHED[index.matched.size];
  const found =
    index.kept && slot !== undefined ? kept.bytes(slot, index.count) : new Uint8Array(index.count);
  const search = new RegExp(pattern.source, `${pattern.flags.replace(/[gy]/g, "")}g`);
  let line = 0;
  for (let match = search.exec(text); match !== null; match = search.exec(text)) {
    while ((starts[line + 1] as number) <= match.index) line++;
    found[line] = 1;
    const next = starts[line + 1] as number;
    if (next > text.length) break;
    search.lastIndex = next;
  }
  index.matched.set(key, found);
  return found;
}

/**
 * The per-line arrays a reading fills, as long as the lines it expects (`capacity`, a starts
 * array one longer): a long text's from the kept and working arrays, grown by copying when the
 * text has more lines than expected.
 */
interface LineArrays {
  capacity: number;
  starts: Int32Array;
  hashes: Int32Array;
  nonBlank: Uint8Array;
  again: Uint8Array;
}

function lineArrays(capacity: number, keep: boolean): LineArrays {
  return {
    capacity,
    starts: keep ? kept.ints(STARTS, capacity + 1) : new Int32Array(capacity + 1),
    hashes: working.ints(HASHES, capacity),
    nonBlank: keep ? kept.bytes(NON_BLANK, capacity) : new Uint8Array(capacity),
    again: working.bytes(AGAIN, capacity),
  };
}

/** Makes room for `lines` lines, what was read kept. */
function grow(arrays: LineArrays, lines: number): void {
  const capacity = Math.max(lines, arrays.capacity * 2);
  const starts = new Int32Array(capacity + 1);
  starts.set(arrays.starts);
  const hashes = new Int32Array(capacity);
  hashes.set(arrays.hashes);
  const nonBlank = new Uint8Array(capacity);
  nonBlank.set(arrays.nonBlank);
  const again = new Uint8Array(capacity);
  again.set(arrays.again);
  Object.assign(arrays, { capacity, starts, hashes, nonBlank, again });
}

/** Characters of a long text whose newlines are counted to expect how many lines it has. */
const SAMPLE_CHARS = 64 * 1024;

/**
 * How many lines a long text is expected to have, from the newlines of its first SAMPLE_CHARS
 * characters, an eighth more: a text read at once counts its lines as it goes (counted first, a
 * text of a few hundred thousand short lines was searched once a line before it was read), and
 * a text whose lines are shorter further on grows its arrays once or twice.
 */
function expectedLines(text: string): number {
  const sample = Math.min(text.length, SAMPLE_CHARS);
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < sample; at = text.indexOf("\n", at + 1)) {
    lines++;
  }
  return linesAtRate(lines, sample, text.length);
}

/** A stretch of this many lines equal to the one before them is read as blocks of lines. */
const BLOCK_LINES = 8;
/** The first block of equal lines compared at once; blocks that match are doubled. */
const FIRST_BLOCK_LINES = 64;

/**
 * How many whole lines from `from` on are each the `period` characters before `from` (a line
 * and its `\n`) again: blocks of lines compared with the same block one line earlier (one
 * comparison of characters, where a line at a time was read and hashed), doubled while they
 * match and halved when one does not, down to BLOCK_LINES.
 */
function linesRepeated(text: string, from: number, period: number): number {
  const whole = Math.floor((text.length - from) / period);
  let lines = 0;
  for (let block = FIRST_BLOCK_LINES; block >= BLOCK_LINES; ) {
    const take = Math.min(block, whole - lines);
    if (take < BLOCK_LINES) break;
    const at = from + lines * period;
    const chars = take * period;
    if (text.slice(at, at + chars) === text.slice(at - period, at - period + chars)) {
      lines += take;
      block *= 2;
    } else {
      block >>= 1;
    }
  }
  return lines;
}

/**
 * The index of `text`, in the kept arrays when `keep` (a long text's, the one remembered). Its
 * lines are counted as they are read; a stretch of lines equal to the one before them (`yes`, a
 * redrawn status) is read a block of lines at a time once BLOCK_LINES of them were read one by
 * one, and again once the stretch has doubled, so a text whose lines come in pairs is not
 * compared ahead at every second line.
 */
function build(text: string, keep: boolean): LineIndex {
  const arrays = lineArrays(keep ? expectedLines(text) : countLines(text), keep);
  let { starts, hashes, nonBlank, again } = arrays;
  // Lines equal to the one before them (a redrawn status, `yes`: the commonest repeat), told as
  // each line ends: its hash and length are the last line's, and so is every character.
  let repeats = 0;
  let line = 0;
  let hash = FNV_OFFSET;
  let blankless = 0;
  let stretch = 0;
  let nextBlock = BLOCK_LINES;
  for (let at = 0; at < text.length; at++) {
    const code = codeAt(text, at);
    if (code === NEWLINE) {
      if (line + 1 >= arrays.capacity) {
        grow(arrays, linesAtRate(line + 1, at + 1, text.length));
        ({ starts, hashes, nonBlank, again } = arrays);
      }
      hashes[line] = hash;
      nonBlank[line] = blankless;
      starts[line + 1] = at + 1;
      if (line > 0 && hashes[line - 1] === hash && sameLine(text, starts, line - 1, line)) {
        again[line] = 1;
        repeats++;
        stretch++;
      } else {
        stretch = 0;
        nextBlock = BLOCK_LINES;
      }
      line++;
      if (stretch >= nextBlock) {
        const period = at + 1 - (starts[line - 1] as number);
        const more = linesRepeated(text, at + 1, period);
        if (line + more >= arrays.capacity) {
          grow(arrays, line + more + Math.ceil(((text.length - at) / period) * 0.125) + 64);
          ({ starts, hashes, nonBlank, again } = arrays);
        }
        for (const end = line + more; line < end; line++) {
          hashes[line] = hash;
          nonBlank[line] = blankless;
          again[line] = 1;
          starts[line + 1] = (starts[line] as number) + period;
        }
        repeats += more;
        stretch += more;
        nextBlock = stretch * 2;
        at += more * period;
      }
      hash = FNV_OFFSET;
      blankless = 0;
      continue;
    }
    hash = Math.imul(hash ^ code, FNV_PRIME);
    // Printable ASCII is read without a call: most of a log.
    if (blankless < NON_BLANK_CAP && ((code > 0x20 && code < 0x7f) || !isBlankCode(code))) {
      blankless++;
    }
  }
  const count = line + 1;
  if (count > arrays.capacity) {
    grow(arrays, count);
    ({ starts, hashes, nonBlank, again } = arrays);
  }
  hashes[line] = hash;
  nonBlank[line] = blankless;
  starts[count] = text.length + 1;
  if (line > 0 && hashes[line - 1] === hash && sameLine(text, starts, line - 1, line)) {
    again[line] = 1;
    repeats++;
  }
  starts = starts.subarray(0, count + 1);
  nonBlank = nonBlank.subarray(0, count);
  const ids = keep ? kept.ints(IDS, count) : new Int32Array(count);
  const distinct = idsOf(
    text,
    starts,
    hashes.subarray(0, count),
    again.subarray(0, count),
    ids,
    count - repeats,
  );
  const index = { text, count, starts, ids, distinct, nonBlank, matched: new Map(), kept: keep };
  if (keep) keptBy = index;
  return index;
}

/**
 * Ids of equal lines, written into `ids`; returns how many distinct lines there are. A line
 * equal to the one before it (`again`) takes that one's id at once.
 * Of the others (`fresh` of them), a line whose hash no other line shares is
 * a line of its own: those are told apart first in a bit set (a byte for eight lines, where a
 * table of every line is one random read of megabytes per line), and only lines whose hash may
 * be shared go into an open-addressing table of the first line of each hash, a line taken as
 * that one's equal only when every character is. When the others are few (a line repeated,
 * `yes`; a redrawn status) the table is small: they all go into it, no bit set read first.
 */
function idsOf(
  text: string,
  starts: Int32Array,
  hashes: Int32Array,
  again: Uint8Array,
  ids: Int32Array,
  fresh: number,
): number {
  const count = hashes.length;
  const all = fresh * FEW_FRESH <= count;
  let bits = 64;
  while (!all && bits < count * 8) bits *= 2;
  const once = working.bytes(ONCE, all ? 0 : bits >>> 3);
  const twice = working.bytes(TWICE, all ? 0 : bits >>> 3);
  const bitMask = bits - 1;
  let shared = all ? fresh : 0;
  if (!all) {
    for (let line = 0; line < count; line++) {
      if (again[line]) continue;
      const bit = (hashes[line] as number) & bitMask;
      const byte = bit >>> 3;
      const flag = 1 << (bit & 7);
      if ((once[byte] as number) & flag) twice[byte] = (twice[byte] as number) | flag;
      else once[byte] = (once[byte] as number) | flag;
    }
    for (let line = 0; line < count; line++) {
      const bit = (hashes[line] as number) & bitMask;
      if (!again[line] && (twice[bit >>> 3] as number) & (1 << (bit & 7))) shared++;
    }
  }
  let size = 2;
  while (size < shared * 2) size *= 2;
  const mask = size - 1;
  const table = working.ints(TABLE, size, -1);
  let distinct = 0;
  for (let line = 0; line < count; line++) {
    if (again[line]) {
      ids[line] = ids[line - 1] as number;
      continue;
    }
    const hash = hashes[line] as number;
    const bit = hash & bitMask;
    if (!all && !((twice[bit >>> 3] as number) & (1 << (bit & 7)))) {
      ids[line] = distinct++;
      continue;
    }
    let slot = (hash >>> 7) & mask;
    for (;;) {
      const first = table[slot] as number;
      if (first === -1) {
        table[slot] = line;
        ids[line] = distinct++;
        break;
      }
      if (hashes[first] === hash && sameLine(text, starts, first, line)) {
        ids[line] = ids[first] as number;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return distinct;
}

/** Whether lines `a` and `b` are equal (`starts` holds where the line after `b` starts). */
function sameLine(text: string, starts: Int32Array, a: number, b: number): boolean {
  const fromA = starts[a] as number;
  const fromB = starts[b] as number;
  const length = (starts[a + 1] as number) - fromA;
  if ((starts[b + 1] as number) - fromB !== length) return false;
  for (let at = 0; at < length - 1; at++) {
    if (codeAt(text, fromA + at) !== codeAt(text, fromB + at)) return false;
  }
  return true;
}
