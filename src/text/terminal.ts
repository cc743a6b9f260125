import { codeAt } from "./char-code.js";
import { textOf, type Units, unitsOf } from "./unit-buffer.js";

/**
 * Terminal output as a reader sees it (§5 textclean): without its escape sequences, and with
 * each line's carriage-return redraws resolved to what the terminal left visible.
 */

/**
 * ANSI escape sequences, as `stripEscapes` reads them: what the pattern
 * `(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[()*+][0-~]|\x1b[ -/]*[0-~]`
 * finds, in its order: CSI (`ESC [` params, intermediates, final; also the one-byte C1 CSI), OSC
 * (`ESC ]` … BEL or `ESC \`), DCS/SOS/PM/APC strings (`ESC P|X|^|_` … `ESC \`), both only when
 * terminated (an unterminated one loses just its `ESC ]`, never the text after it),
 * character-set designations (`ESC ( B`), and the remaining two-character escapes (`ESC 7`,
 * `ESC =`, `ESC M`, …).
 */
const ESC = 0x1b;
const C1_CSI = 0x9b;
const BEL = 0x07;
const CR = 0x0d;
const LF = 0x0a;

const within = (code: number, low: number, high: number) => code >= low && code <= high;

/** The unit at `at`, -1 past the end. */
const unitAt = (units: Units, at: number): number => units[at] ?? -1;

/** Where a CSI whose parameters start at `from` ends, or -1 when it has no final byte. */
function csiEnd(units: Units, from: number): number {
  let at = from;
  while (within(unitAt(units, at), 0x30, 0x3f)) at++;
  while (within(unitAt(units, at), 0x20, 0x2f)) at++;
  return within(unitAt(units, at), 0x40, 0x7e) ? at + 1 : -1;
}

/** Where the escape sequence that starts at `at` (an ESC or a C1 CSI) ends, or -1 for none. */
function escapeEnd(units: Units, at: number): number {
  if (units[at] === C1_CSI) return csiEnd(units, at + 1);
  const second = unitAt(units, at + 1);
  if (second === 0x5b) {
    const end = csiEnd(units, at + 2);
    if (end !== -1) return end;
  } else if (second === 0x5d) {
    let end = at + 2;
    while (end < units.length && units[end] !== BEL && units[end] !== ESC) end++;
    if (units[end] === BEL) return end + 1;
    if (units[end] === ESC && units[end + 1] === 0x5c) return end + 2;
  } else if (second === 0x50 || second === 0x58 || second === 0x5e || second === 0x5f) {
    const end = units.indexOf(ESC, at + 2);
    if (end !== -1 && units[end + 1] === 0x5c) return end + 2;
  } else if (within(second, 0x28, 0x2b) && within(unitAt(units, at + 2), 0x30, 0x7e)) {
    return at + 3;
  }
  let end = at + 1;
  while (within(unitAt(units, end), 0x20, 0x2f)) end++;
  return within(unitAt(units, end), 0x30, 0x7e) ? end + 1 : -1;
}

/**
 * Passes over a text at most. Removing a sequence can join an ESC to the text after it (`ESC ESC
 * a` → `ESC a`), so a text is cleaned again while a pass changes it; but each pass reads the whole
 * text, and escapes nested one in another (`ESC ESC ESC 7 7 7`) lose one level a pass: a run of
 * them would take time quadratic in its length. Terminal output nests one level, rarely two;
 * what is nested deeper keeps the escapes the last pass left.
 */
export const CLEAN_PASSES = 4;

/**
 * `text` without its escape sequences and with its redraws resolved, cleaned again while a pass
 * changes it (at most CLEAN_PASSES passes); `text` itself when there is nothing to clean.
 *
 * A bare `\r` (one not followed by `\n`) returns the cursor to the start of the line, so of the
 * segments it separates only the last non-empty one is what a terminal leaves visible; that one
 * is kept (a shorter final segment would, on a real terminal, leave the tail of a longer earlier
 * one visible — progress redraws rewrite whole lines, so this is not reproduced). `\r\n` line
 * endings are line endings, not redraws: they are kept byte for byte.
 */
export function cleanText(text: string): string {
  let current = text;
  for (let pass = 0; pass < CLEAN_PASSES; pass++) {
    const next = cleanOnce(current);
    if (next === current) return current;
    current = next;
  }
  return current;
}

/** `text` without its escape sequences (every match of the pattern above removed). */
export function stripEscapes(text: string): string {
  if (!hasEscapeStart(text)) return text;
  const units = unitsOf(text);
  const length = copyWithoutEscapes(units, 0, units.length, 0);
  return length === text.length ? text : textOf(units, length);
}

/**
 * One pass: the text's units copied into a buffer (unit-buffer.ts), what stays of them moved to
 * its start, and read back as one string. A coloured log has a sequence every dozen characters:
 * a pattern's replace cost about 170 ns a match, and splitting the cleaned text into lines and
 * joining them again as much as the copy.
 *
 * Only a string sequence (OSC, DCS, SOS, PM, APC) can hold a line end, so in a text without one
 * the lines and redraw segments are where the text's own `\r` and `\n` put them: a redrawn line
 * is read from its end, and of a progress bar drawn a hundred times only the last drawing is
 * copied (copyVisible). A text with one has every sequence skipped first and its redraws
 * resolved in the buffer after (resolveRedraws).
 */
function cleanOnce(text: string): string {
  const escapes = hasEscapeStart(text);
  // A `\r` bare once the sequences are gone is bare in the text too: what follows it there is
  // the unit that follows it then, or a sequence.
  if (!escapes && !hasBareReturn(text)) return text;
  const units = unitsOf(text);
  const length =
    escapes && STRING_SEQUENCE_START.test(text)
      ? resolveRedraws(units, copyWithoutEscapes(units, 0, units.length, 0))
      : copyVisible(text, units);
  return length === text.length ? text : textOf(units, length);
}

/** The start of a string sequence, the only kind whose text may run over a `\r` or `\n`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC opens the sequences looked for
const STRING_SEQUENCE_START = /\x1b[\]PX^_]/;

function hasEscapeStart(text: string): boolean {
  return text.indexOf("\x1b") !== -1 || text.indexOf("\x9b") !== -1;
}

/**
 * Whether `text` holds a `\r` that is not the first half of a `\r\n`: without one there is no
 * redraw to resolve, and a log with CRLF line endings is left as it is.
 */
function hasBareReturn(text: string): boolean {
  for (let at = text.indexOf("\r"); at >= 0; at = text.indexOf("\r", at + 1)) {
    if (codeAt(text, at + 1) !== LF) return true;
  }
  return false;
}

/**
 * Copies the units of `units[from, to)` outside escape sequences to `units[length…]` (in place:
 * `length` is at most `from`); returns the new length. No sequence that starts before `to` runs
 * past it: `to` is the end, or a `\r` or `\n` of a text without string sequences.
 */
function copyWithoutEscapes(units: Units, from: number, to: number, length: number): number {
  let written = length;
  for (let at = from; at < to; ) {
    const code = units[at] as number;
    if (code === ESC || code === C1_CSI) {
      const end = escapeEnd(units, at);
      if (end !== -1) {
        at = end;
        continue;
      }
    }
    units[written++] = code;
    at++;
  }
  return written;
}

/**
 * Copies what a terminal leaves visible of `text`, one without string sequences, to the start of
 * its `units`; returns how many units. Lines without a bare `\r` are copied without their
 * sequences; of a line with one, only the segment kept (copyRedrawnLine). A `\r` directly before
 * its `\n` ends its line and is passed over. Line ends and returns are searched for in the text
 * (the units not copied yet are still its own); a line is read back in the units.
 */
function copyVisible(text: string, units: Units): number {
  let length = 0;
  let copied = 0;
  let cr = text.indexOf("\r");
  while (cr !== -1) {
    if (codeAt(text, cr + 1) === LF) {
      cr = text.indexOf("\r", cr + 2);
      continue;
    }
    let lineStart = cr;
    while (lineStart > copied && units[lineStart - 1] !== LF) lineStart--;
    length = copyWithoutEscapes(units, copied, lineStart, length);
    const lineEnd = text.indexOf("\n", cr);
    if (lineEnd === -1) return copyRedrawnLine(units, lineStart, cr, units.length, length);
    length = copyRedrawnLine(units, lineStart, cr, lineEnd, length);
    copied = lineEnd + 1;
    cr = text.indexOf("\r", copied);
  }
  return copyWithoutEscapes(units, copied, units.length, length);
}

/**
 * Copies the line `units[lineStart, lineEnd)`, whose first `\r` is at `firstReturn`, to
 * `units[length…]` as resolveRedraws leaves it, and its `\n` when it has one; returns the new
 * length. Its segments are read from the last: the first with a unit outside the sequences is
 * the one kept, and the ones before it are never read. A last segment of sequences alone before
 * the `\n` makes the `\r` before it a CRLF ending: kept after the segment, as a line with no other
 * `\r` is kept whole.
 */
function copyRedrawnLine(
  units: Units,
  lineStart: number,
  firstReturn: number,
  lineEnd: number,
  length: number,
): number {
  const hasEnding = lineEnd < units.length;
  let crlf = false;
  let kept = length;
  for (let to = lineEnd; ; ) {
    let from = lineStart;
    if (to > firstReturn) {
      from = to;
      while (units[from - 1] !== CR) from--;
    }
    kept = copyWithoutEscapes(units, from, to, length);
    if (kept > length || from === lineStart) break;
    if (to === lineEnd && hasEnding) crlf = true;
    to = from - 1;
  }
  if (crlf) units[kept++] = CR;
  if (hasEnding) units[kept++] = LF;
  return kept;
}

/**
 * Resolves the redraws of the text in `units[0, length)` in place; returns its new length. Each
 * line holding a bare `\r` keeps its last run of units without one (the last non-empty segment),
 * its `\r\n` ending if it had one; the lines between are moved as they are.
 */
function resolveRedraws(units: Units, length: number): number {
  let write = 0;
  let read = 0;
  let cr = units.indexOf(CR);
  while (cr !== -1 && cr < length) {
    const lineStart = cr === 0 ? 0 : units.lastIndexOf(LF, cr - 1) + 1;
    let lineEnd = units.indexOf(LF, cr);
    const last = lineEnd === -1 || lineEnd >= length;
    if (last) lineEnd = length;
    const bodyEnd = !last && units[lineEnd - 1] === CR ? lineEnd - 1 : lineEnd;
    if (cr < bodyEnd) {
      let end = bodyEnd;
      while (end > lineStart && units[end - 1] === CR) end--;
      let start = end;
      while (start > lineStart && units[start - 1] !== CR) start--;
      units.copyWithin(write, read, lineStart);
      write += lineStart - read;
      units.copyWithin(write, start, end);
      write += end - start;
      if (bodyEnd < lineEnd) units[write++] = CR;
      if (!last) units[write++] = LF;
      read = last ? length : lineEnd + 1;
    }
    cr = lineEnd + 1 < length ? units.indexOf(CR, lineEnd + 1) : -1;
  }
  units.copyWithin(write, read, length);
  return write + length - read;
}
