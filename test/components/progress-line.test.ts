import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isProgressLine, PROGRESS_CHAR } from "../../src/components/extract.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/**
 * The reference: isProgressLine as its patterns first read a line, with backtracking that takes
 * time quadratic in a run of digits or spaces. extract.ts reads the same lines without it.
 */
const ERROR_WORD = /error|fail|exception|panic|fatal|traceback|warning/i;
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

function referenceIsProgressLine(line: string): boolean {
  if (ERROR_WORD.test(line) || line.trim() === "") return false;
  if (SPINNER.test(line) || PERCENT_ONLY.test(line)) return true;
  const bar = BRACKET_BAR.test(line) || BLOCK_BAR.test(line);
  if (bar && (PERCENT.test(line) || RATE.test(line) || COUNT_OR_ETA.test(line))) return true;
  return RATE.test(line) && (TRANSFER.test(line) || PERCENT.test(line) || bar);
}

/** White space of every kind `\s` and `trimEnd` know, line ends among them, and two they do not. */
const space = fc.constantFrom(
  " ",
  "  ",
  "\t",
  "\v",
  "\f",
  "\r",
  "\n",
  "\u00a0",
  "\u2028",
  "\u2029",
  "\u3000",
  "\ufeff",
  "\u0085",
  "\u180e",
);
const spinner = fc.constantFrom("⠋", "⣿", "◐", "◵", "|", "/", "\\", "-");
const bar = fc.constantFrom("███", "━━━", "[====>    ]", "[==");
/** Digits, counts, times and etas, whole and in pieces, and what may stand next to them. */
const figure = fc.constantFrom(
  "7",
  "77",
  "1.5",
  ":",
  ":00",
  "12:34",
  "1:02:03",
  "<",
  "/",
  "3/9",
  "MB",
  "45%",
  "MB/s",
  "eta",
  "a",
  "x",
  "_",
  "🚀",
  "\ud800",
);
/** What an eta (`12:34<`) is made of, and what may stand before it. */
const clock = fc.constantFrom(
  "7",
  "12",
  ":",
  "00",
  "12:34<",
  "1:02:03<",
  "<",
  ".",
  "/",
  " ",
  "a",
  "_",
  "%",
);
const piece = fc.oneof(space, spinner, bar, figure);
const pieces = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(""));
/** A line as a spinner frame or a bar starts, or as anything does. */
const line = fc.oneof(
  fc
    .tuple(fc.array(space, { maxLength: 2 }), spinner, pieces)
    .map(([lead, frame, rest]) => [...lead, frame, rest].join("")),
  fc.tuple(bar, fc.array(clock, { maxLength: 10 })).map(([start, rest]) => start + rest.join("")),
  pieces,
);

describe("isProgressLine", () => {
  it("answers as its patterns read with backtracking do", () => {
    fc.assert(
      fc.property(line, (text) => {
        expect(isProgressLine(text)).toBe(referenceIsProgressLine(text));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it("is true only for a line holding a character extract looks for before testing it", () => {
    fc.assert(
      fc.property(line, (text) => {
        if (isProgressLine(text)) expect(PROGRESS_CHAR.test(text)).toBe(true);
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  // With a trailing `\s*` after `.*`, the spinner pattern took time quadratic in a run of spaces
  // that a line end (\u2028, which `.` does not cross) cuts short: minutes on each of these.
  it.each([
    ["a spinner then spaces then a line end", `⠋${" ".repeat(300_000)}\u2028x`, false],
    ["a spinner then spaces then a bar", `⠋${" ".repeat(300_000)}\u2028███ 45%`, true],
  ])("answers for %s (300 kB)", (_name, text, expected) => {
    expect(isProgressLine(text)).toBe(expected);
  });

  // Read from every digit of the run, the eta pattern took time quadratic in the run: minutes on
  // each of these.
  it.each([
    ["a bar then digits", `███ ${"7".repeat(500_000)}`, false],
    ["a bar then digits then an eta", `███ ${"7".repeat(500_000)} eta`, true],
  ])("answers for %s (500 kB)", (_name, text, expected) => {
    expect(isProgressLine(text)).toBe(expected);
  });
});
