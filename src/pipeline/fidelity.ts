import { type ContentClass, isFactClass } from "../content/content-class.js";
import { EXPAND_HINT } from "../expand/markers.js";
import { checkStructured } from "./structured-fidelity.js";

/**
 * The generic fidelity rules of SPEC §5 "Fidelity", checked on one offloader's change to one
 * tool output (reformats are lossless and exempt). A compacted output is verbatim, losslessly
 * repacked, or visibly reduced:
 * - it is never empty, and never made only of markers and omission notes (lines opening with
 *   `…`): something of what the output said, or a placeholder naming it, stays;
 * - an output of a fact class (file reads, diffs, search results) keeps every line, in order,
 *   unless it has one of the shapes that account for what is gone: a whole-output mask (one
 *   `[…]` placeholder line naming what was hidden), or a head/tail collapse (a prefix of the
 *   original lines, one note line with a count, a suffix);
 * - a structured document (JSON, YAML, a table) keeps its records whole: a whole-output mask,
 *   or (structured-fidelity.ts) valid JSON that stays valid and loses items only with a count,
 *   or the lines of a table or YAML document less whole records that carry no error and no
 *   status that is not normal, with one note and a count where each run of them was.
 * Marker tokens of the change (`markers`), the expand hint, and lines made only of them are
 * not content. A final newline on either side is not a line.
 */
export type FidelityViolation =
  /** The result has no text left. */
  | "empty"
  /** The result is only markers, omission notes, or both. */
  | "notes_only"
  /** A fact-class output lost lines without a mask or a head/tail collapse accounting for them. */
  | "fact_thinned"
  /** Valid JSON came back invalid, or a JSON document lost items without a count. */
  | "json_broken"
  /** A table or YAML document lost part of a record, a notable record, or records without a count. */
  | "record_cut";

const NOTE = /^\s*\u2026/;
const COUNT = /\b[1-9]\d*\b/;
const WORD_PLACEHOLDER = /^\[[A-Za-z][^\n]*\]$/;
const NOT_SPACE = /\S/;

export function checkFidelity(
  original: string,
  replacement: string,
  contentClass: ContentClass,
  markers: readonly string[],
): FidelityViolation | undefined {
  if (replacement === original) return undefined;
  if (original.trim() === "") return undefined;
  if (replacement.trim() === "") return "empty";
  const lines = contentLines(replacement, markers);
  if (!lines.some((line) => line.trim() !== "" && !NOTE.test(line))) return "notes_only";
  if (!isFactClass(contentClass)) return undefined;
  if (contentClass === "json" || contentClass === "yaml" || contentClass === "table") {
    // A placeholder opens with a word (`[older tool output masked]`); a JSON array does not.
    if (lines.length === 1 && WORD_PLACEHOLDER.test((lines[0] as string).trim())) return undefined;
    return checkStructured(original, lines, contentClass);
  }
  // One line cannot hold several received lines: the common whole-output mask is told by its
  // shape without splitting the original.
  if (lines.length === 1 && hasSeveralLines(original)) {
    return isPlaceholder((lines[0] as string).trim()) ? undefined : "fact_thinned";
  }
  const received = withoutFinalNewline(original.split("\n"));
  if (isInOrder(received, lines)) return undefined;
  if (lines.length === 1 && isPlaceholder((lines[0] as string).trim())) return undefined;
  return isHeadTailCollapse(received, lines) ? undefined : "fact_thinned";
}

/**
 * Whether `line` is one placeholder: `[`, something that is not whitespace, `]` (`[older tool
 * output masked]`). Read by hand: a pattern with a run before and after the character that is not
 * whitespace takes time quadratic in a long line that does not end with `]`.
 */
function isPlaceholder(line: string): boolean {
  return (
    line.length > 2 &&
    line.startsWith("[") &&
    line.endsWith("]") &&
    !line.includes("\n") &&
    NOT_SPACE.test(line.slice(1, -1))
  );
}

/** Whether `text` is more than one line (a final newline does not start one). */
function hasSeveralLines(text: string): boolean {
  const at = text.indexOf("\n");
  return at !== -1 && at < text.length - 1;
}

/** The replacement's lines with its markers and the hint removed, marker-only lines dropped. */
function contentLines(replacement: string, markers: readonly string[]): string[] {
  const tokens = [...markers, EXPAND_HINT].filter(
    (token) => token !== "" && replacement.includes(token),
  );
  if (tokens.length === 0) return withoutFinalNewline(replacement.split("\n"));
  const lines: string[] = [];
  for (const line of replacement.split("\n")) {
    let stripped = line;
    for (const token of tokens) stripped = stripped.split(token).join("");
    if (stripped !== line && stripped.trim() === "") continue;
    lines.push(stripped === line ? line : stripped.trimEnd());
  }
  return withoutFinalNewline(lines);
}

function withoutFinalNewline(lines: string[]): string[] {
  return lines.length > 1 && lines[lines.length - 1] === "" ? lines.slice(0, -1) : lines;
}

/** Every received line appears in `lines`, in order. */
function isInOrder(received: readonly string[], lines: readonly string[]): boolean {
  let at = 0;
  for (const line of lines) if (at < received.length && line === received[at]) at++;
  return at === received.length;
}

/** `lines` = a prefix of `received`, one note with a count, a suffix of `received`. */
function isHeadTailCollapse(received: readonly string[], lines: readonly string[]): boolean {
  if (lines.length < 1 || lines.length > received.length) return false;
  let head = 0;
  while (head < lines.length - 1 && lines[head] === received[head]) head++;
  const note = lines[head] as string;
  const tail = lines.length - head - 1;
  for (let at = 1; at <= tail; at++) {
    if (lines[lines.length - at] !== received[received.length - at]) return false;
  }
  return head + tail < received.length && NOTE.test(note) && COUNT.test(note);
}
