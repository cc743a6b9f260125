import { isFactClass } from "../content/content-class.js";
import type { OutputComponent } from "../pipeline/types.js";
import { withMarkerLine } from "./marked-phrase.js";

/**
 * `extract` (§5, Offload): a deterministic projection of a tool output that keeps what a reader
 * needs and drops what only a terminal needed.
 *
 * Lines are the text split on `\n`. In order:
 * 1. Progress lines are dropped: a bar (`[====>   ] 45%`, `45%|████ | 9/20`, `━━━━━ 1.2/3 MB`)
 *    with a percent, rate, count or eta; a transfer line (`Downloading x 12.3 MB/s`); a spinner
 *    frame (a lone `|/-\` or a line opening with a braille spinner); a percentage-only redraw
 *    (`45%`, `(12/100) 45%`).
 * 2. A line equal to the line before it is dropped: runs of blank or identical lines keep one.
 * 3. A repeated segment is dropped: the longest run of consecutive lines that already appeared,
 *    verbatim and consecutive, earlier in the output, provided it holds at least
 *    `MIN_REPEAT_CHARS` non-blank characters (so a repeated `}` or `else:` stays where it is).
 * A line with an error word (error, fail, exception, panic, fatal, traceback, warning) is never
 * dropped by step 1; steps 2 and 3 drop only exact repeats, so one copy of it always stays.
 *
 * Result: the kept lines joined by `\n`, then `\n` + T on its own last line (T alone when the
 * kept text already ends with `\n`); in off mode nothing is appended. Undefined when nothing is
 * dropped or the output is under `min_tokens`.
 */

const ERROR_WORD = /error|fail|exception|panic|fatal|traceback|warning/i;
/** Fewest non-blank characters a repeated segment needs before a later copy is dropped. */
export const MIN_REPEAT_CHARS = 24;
/** How many earlier occurrences of a line are tried as the start of a repeated segment. */
const MAX_CANDIDATES = 32;

// Patterns stay linear on a megabyte-long line: no unbounded scan inside a repeated start.
const BRACKET_BAR = /\[(?=[=#>.\- ]{4,}\])[.\- ]*[=#>]/;
const BLOCK_BAR = /[█▉▊▋▌▍▎▏▓▒░━╸╺■]{3,}/;
const PERCENT = /\d(?:\.\d+)?\s?%/;
const RATE = /\d(?:\.\d+)?\s?(?:[kKMGT]i?)?(?:B|b|it)\/s\b|\d\s?s\/it\b/;
const COUNT_OR_ETA =
  /\b\d+(?:\.\d+)?\s?(?:[kKMGT]i?B)?\s?\/\s?\d+(?:\.\d+)?|\beta\b|\d+:\d\d(?::\d\d)?</i;
const TRANSFER =
  /^\s*(?:Downloading|Uploading|Receiving|Resolving|Fetching|Pulling|Extracting|Unpacking)\b/i;
const SPINNER = /^\s*(?:[|/\\-]|[\u2800-\u28ff◐◓◑◒◴◷◶◵]\s?.*)\s*$/u;
const PERCENT_ONLY = /^[\s\d.,:/()[\]|-]*\d(?:\.\d+)?\s?%[\s\d.,:/()[\]%|-]*$/;

/** True for a line that only a terminal redraw needed. */
export function isProgressLine(line: string): boolean {
  if (ERROR_WORD.test(line) || line.trim() === "") return false;
  if (SPINNER.test(line) || PERCENT_ONLY.test(line)) return true;
  const bar = BRACKET_BAR.test(line) || BLOCK_BAR.test(line);
  if (bar && (PERCENT.test(line) || RATE.test(line) || COUNT_OR_ETA.test(line))) return true;
  return RATE.test(line) && (TRANSFER.test(line) || PERCENT.test(line) || bar);
}

/** True when lines `from`..`to` hold at least `MIN_REPEAT_CHARS` non-blank characters. */
function isLongEnoughToDrop(lines: readonly string[], from: number, to: number): boolean {
  let count = 0;
  for (let index = from; index < to; index++) {
    const line = lines[index] as string;
    for (let at = 0; at < line.length && count < MIN_REPEAT_CHARS; at++) {
      if (!/\s/.test(line[at] as string)) count++;
    }
    if (count >= MIN_REPEAT_CHARS) return true;
  }
  return false;
}

/** Length of the longest run starting at `at` that appeared consecutively before `at`. */
function repeatedRunLength(
  lines: readonly string[],
  at: number,
  earlier: readonly number[],
): number {
  let best = 0;
  for (let tried = 0; tried < earlier.length && tried < MAX_CANDIDATES; tried++) {
    const start = earlier[earlier.length - 1 - tried] as number;
    let length = 0;
    while (
      start + length < at &&
      at + length < lines.length &&
      lines[start + length] === lines[at + length]
    ) {
      length++;
    }
    if (length > best) best = length;
  }
  return best;
}

/** The projected lines of `lines` (steps 1–3 above). */
export function project(lines: readonly string[]): string[] {
  const candidates = lines.filter((line) => !isProgressLine(line));
  const seen = new Map<string, number[]>();
  const remember = (index: number) => {
    const line = candidates[index] as string;
    const positions = seen.get(line);
    if (positions) positions.push(index);
    else seen.set(line, [index]);
  };
  const kept: string[] = [];
  let index = 0;
  while (index < candidates.length) {
    const line = candidates[index] as string;
    if (index > 0 && candidates[index - 1] === line) {
      remember(index++);
      continue;
    }
    const run = repeatedRunLength(candidates, index, seen.get(line) ?? []);
    if (run > 0 && isLongEnoughToDrop(candidates, index, index + run)) {
      for (const end = index + run; index < end; ) remember(index++);
      continue;
    }
    kept.push(line);
    remember(index++);
  }
  return kept;
}

export const extract: OutputComponent<"extract"> = {
  name: "extract",
  kind: "offload",
  scope: "output",
  reduce(output, options, context) {
    if (isFactClass(output.contentClass)) return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    const lines = output.text.split("\n");
    const kept = project(lines);
    if (kept.length === lines.length) return undefined;
    return withMarkerLine(kept.join("\n"), context.marker(output.text));
  },
};
