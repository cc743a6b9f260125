import { isFactClass } from "../content/content-class.js";
import type { OutputComponent } from "../pipeline/types.js";
import { codeAt, isBlankCode } from "../text/char-code.js";
import {
  type LineIndex,
  lineAt,
  lineIndexOf,
  lineLength,
  linesMatching,
} from "../text/line-index.js";
import { withMarkerLine } from "./marked-phrase.js";

/**
 * `linecap` (§5, Offload): caps repeated lines and over-long lines of a tool output.
 *
 * Lines are the text split on `\n`. Outputs of a fact class (file reads, diffs, search results:
 * src/content/) are never capped.
 * - Repeats: a line that occurs N ≥ 2 times (adjacent or not) and holds at least
 *   `MIN_REPEAT_CHARS` non-blank characters is written once, where it first occurs, as
 *   `line  (xN)` (two spaces); its later copies are removed. Shorter lines (`}`, `else:`, blank
 *   lines) always stay, so the shape of code survives, and so does every line with an error
 *   word: a later run's error is never folded into an earlier run's copy.
 * - Long lines: a line longer than `max_line_chars` is cut in the middle: its first and last
 *   ⌊(max_line_chars − 11) / 2⌋ characters joined by `...[cut]...`, so the result is at most
 *   `max_line_chars` long. Never cut: lines with a path (`/` or `\` before a file name with an
 *   extension, or an absolute path of two or more segments), a stack frame (`at f (file:1:2)`,
 *   `File "x.py", line 3`, `main.go:12`), an error word (error, fail, exception, panic, fatal, traceback,
 *   warning) or a URL — unless the line is HUGE_LINE_CHARS or longer (one line of base64, a
 *   minified bundle): then it is cut like any other, visibly, and in reversible mode its
 *   marker gives it back whole.
 *
 * Result: the lines joined by `\n`, then `\n` + T on its own last line (T alone when the text
 * already ends with `\n`); in off mode nothing is appended. Undefined when nothing changes or the
 * output is under `min_tokens`.
 */

export const CUT = "...[cut]...";
/** Fewest non-blank characters a line needs before its repeats are folded into `(xN)`. */
export const MIN_REPEAT_CHARS = 10;

const ERROR_WORD = /error|fail|exception|panic|fatal|traceback|warning/i;
// Every pattern here stays linear on a megabyte-long line: bounded repeats and lookbehinds only.
const FOLLOWED = /\S/;
const FILE_PATH = /[/\\][\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9}\b/;
const ABSOLUTE_PATH = /(?:^|[\s"'`(=:,[])(?:~|\.{1,2})?(?:\/[\w.@+-]+){2,}|\b[A-Za-z]:\\\w/;
// `file.ts:12`: the colon first, then what comes before it (a lookbehind tried at every
// position of a megabyte-long line costs a third of a second).
const STACK_FRAME =
  /\bat\s+(?:\S+\s+)?\(?[^()\s]+:\d+(?::\d+)?\)?|\bFile "[^"]+", line \d+|:(?<=\w\.[A-Za-z][A-Za-z0-9]{0,9}:)\d+\b/;

/** Letters, digits, `+`, `.` and `-`: what a URL's scheme is made of after its first letter. */
function isSchemeCode(code: number): boolean {
  return (
    isLetterCode(code) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2e ||
    code === 0x2d
  );
}

function isLetterCode(code: number): boolean {
  return (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
}

/**
 * Whether `line` holds a URL: what `/[a-z][a-z0-9+.-]{0,31}:\/\/\S/i` finds, read from each
 * `://` back over at most 32 characters of scheme. The pattern itself tries 32 characters at
 * every position: on a megabyte-long line of letters (a base64 blob, a minified bundle) that is
 * a second of work for one line.
 */
export function hasUrl(line: string): boolean {
  for (let at = line.indexOf("://"); at >= 0; at = line.indexOf("://", at + 1)) {
    if (!FOLLOWED.test(line.charAt(at + 3))) continue;
    for (let back = 1; back <= 32 && at - back >= 0; back++) {
      const code = codeAt(line, at - back);
      if (isLetterCode(code)) return true;
      if (!isSchemeCode(code)) break;
    }
  }
  return false;
}

/** True for a line that must never be cut in the middle. */
export function isProtected(line: string): boolean {
  return (
    ERROR_WORD.test(line) ||
    hasUrl(line) ||
    STACK_FRAME.test(line) ||
    FILE_PATH.test(line) ||
    ABSOLUTE_PATH.test(line)
  );
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Lines at least this long are cut even when protected: a file printed as one line of base64
 * or a minified bundle holds an error word, a path or a URL by chance somewhere in its
 * megabytes, no model reads such a line whole, and no other component can shorten one line.
 */
export const HUGE_LINE_CHARS = 64 * 1024;

/** `line` cut in the middle to at most `maxChars`, or the line itself when it may not be cut. */
export function cutLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  if (line.length < HUGE_LINE_CHARS && isProtected(line)) return line;
  const keep = Math.max(0, Math.floor((maxChars - CUT.length) / 2));
  let head = line.slice(0, keep);
  let tail = keep === 0 ? "" : line.slice(-keep);
  // Never split a surrogate pair: drop the half that would be left alone.
  if (head.length > 0 && isHighSurrogate(codeAt(head, head.length - 1))) head = head.slice(0, -1);
  if (tail.length > 0 && isLowSurrogate(codeAt(tail, 0))) tail = tail.slice(1);
  const cut = head + CUT + tail;
  return cut.length < line.length ? cut : line;
}

/** True when `line` has at least `MIN_REPEAT_CHARS` non-blank characters (counts no further). */
function isLongEnoughToFold(line: string): boolean {
  let count = 0;
  for (let at = 0; at < line.length && count < MIN_REPEAT_CHARS; at++) {
    if (!isBlankCode(codeAt(line, at))) count++;
  }
  return count >= MIN_REPEAT_CHARS;
}

/** `errors`: whether each line has an error word, when already found (linesMatching). */
function countRepeats(lines: readonly string[], errors?: Uint8Array): Map<string, number> {
  const counts = new Map<string, number>();
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at] as string;
    if (!isLongEnoughToFold(line) || (errors ? errors[at] : ERROR_WORD.test(line))) continue;
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}

/**
 * Whether capping the indexed text changes it: a line long enough to fold occurs twice, or a
 * line over `maxChars` may be cut. Read from the text's line index, so an output of a million
 * distinct short lines is answered without a string for each (only a long line is made one).
 */
function capsAny(index: LineIndex, maxChars: number): boolean {
  const errors = linesMatching(index, ERROR_WORD);
  const seen = new Uint8Array(index.distinct);
  for (let line = 0; line < index.count; line++) {
    if ((index.nonBlank[line] as number) < MIN_REPEAT_CHARS || errors[line]) continue;
    const id = index.ids[line] as number;
    if (seen[id]) return true;
    seen[id] = 1;
  }
  for (let line = 0; line < index.count; line++) {
    if (lineLength(index, line) <= maxChars) continue;
    const text = lineAt(index, line);
    if (cutLine(text, maxChars) !== text) return true;
  }
  return false;
}

/**
 * The capped lines of `lines`; `errors`, whether each has an error word, when already found (the
 * text's line index read them all in one search).
 */
export function capLines(
  lines: readonly string[],
  maxChars: number,
  errors?: Uint8Array,
): string[] {
  const counts = countRepeats(lines, errors);
  const written = new Set<string>();
  const capped: string[] = [];
  for (const line of lines) {
    // No line is looked up when none repeats (a log of a million distinct short lines).
    const occurrences = counts.size === 0 ? 1 : (counts.get(line) ?? 1);
    if (occurrences < 2) {
      capped.push(cutLine(line, maxChars));
    } else if (!written.has(line)) {
      written.add(line);
      capped.push(`${cutLine(line, maxChars)}  (x${occurrences})`);
    }
  }
  return capped;
}

export const linecap: OutputComponent<"linecap"> = {
  name: "linecap",
  kind: "offload",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: true,
  reduce(output, options, context) {
    if (isFactClass(output.contentClass)) return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    // One line repeats nothing: it is only cut (a file as a line of base64), not indexed.
    if (output.text.indexOf("\n") === -1) {
      const cut = cutLine(output.text, options.max_line_chars);
      return cut === output.text ? undefined : withMarkerLine(cut, context.marker(output.text));
    }
    const index = lineIndexOf(output.text);
    if (!capsAny(index, options.max_line_chars)) return undefined;
    const lines = output.text.split("\n");
    const capped = capLines(lines, options.max_line_chars, linesMatching(index, ERROR_WORD));
    const changed = capped.length !== lines.length || capped.some((line, i) => line !== lines[i]);
    if (!changed) return undefined;
    return withMarkerLine(capped.join("\n"), context.marker(output.text));
  },
};
