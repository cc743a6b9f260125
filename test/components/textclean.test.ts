import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { textclean } from "../../src/components/textclean.js";
import { componentsSchema } from "../../src/config/schema.js";
import { CLEAN_PASSES, cleanText, stripEscapes } from "../../src/text/terminal.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

const defaults = componentsSchema.parse({}).textclean;
const noMinimum = { ...defaults, min_tokens: 0 };

function run(text: string, options = noMinimum): string | undefined {
  const outputs = toolOutputs([text]);
  return textclean.reduce(outputs[0]!, options, fakeContext(outputs));
}

const ESC = "\x1b";

describe("textclean", () => {
  it.each([
    [
      "SGR colours",
      `${ESC}[31mFAILED${ESC}[0m test_a\n${ESC}[1;32mok${ESC}[m`,
      "FAILED test_a\nok",
    ],
    ["cursor movement and erase", `a${ESC}[2K${ESC}[1Gb${ESC}[?25l${ESC}[?25h`, "ab"],
    ["OSC hyperlink (BEL)", `${ESC}]8;;https://x.dev${ESC}\\link${ESC}]8;;\x07 end`, "link end"],
    ["OSC title (ST)", `${ESC}]0;title${ESC}\\text`, "text"],
    ["charset and keypad escapes", `${ESC}(Bplain${ESC}=${ESC}>`, "plain"],
    ["C1 CSI", "\x9b1mbold\x9b0m", "bold"],
    [
      "progress redraw",
      "Downloading 10%\rDownloading 50%\rDownloading 100%\nDone",
      "Downloading 100%\nDone",
    ],
    ["redraw ending in a bare CR", "50%\r100%\r", "100%"],
    ["redraw then text on the same line", "[###   ]\r[######]\rinstalled\nnext", "installed\nnext"],
    ["CRLF kept, redraw inside removed", "a\r\nstep 1\rstep 2\r\nb\r\n", "a\r\nstep 2\r\nb\r\n"],
    ["unicode around escapes", `${ESC}[33m⚠ résumé 🚀${ESC}[0m`, "⚠ résumé 🚀"],
    ["unterminated OSC keeps its text", `${ESC}]not closed\nline`, "not closed\nline"],
  ])("cleans %s", (_, text, expected) => {
    expect(run(text)).toBe(expected);
  });

  it.each([
    ["plain text", "hello\nworld"],
    ["CRLF text", "a\r\nb\r\n"],
    ["empty", ""],
    ["a lone ESC-free bracket", "[31m not an escape"],
  ])("leaves %s alone", (_, text) => {
    expect(run(text)).toBeUndefined();
  });

  it("respects min_tokens", () => {
    const small = `${ESC}[31mred${ESC}[0m`;
    expect(run(small, defaults)).toBeUndefined();
    const large = Array.from({ length: 30 }, (_, n) => `${ESC}[32mPASS${ESC}[0m test_${n}`).join(
      "\n",
    );
    expect(run(large, defaults)).toBe(
      Array.from({ length: 30 }, (_, n) => `PASS test_${n}`).join("\n"),
    );
  });

  it("is idempotent and deterministic", () => {
    const text = `${ESC}[1mx${ESC}[0m\r\n1%\r2%\n`;
    const once = cleanText(text);
    expect(once).toBe("x\r\n2%\n");
    expect(cleanText(once)).toBe(once);
    expect(cleanText(text)).toBe(once);
  });
});

describe("textclean reaches a fixed point", () => {
  it.each([
    ["\u001b\u001baa", ""],
    ["x\u001b\u001b[31mred", "xed"],
  ])("cleans %j to %j in one call", (text, expected) => {
    expect(cleanText(text)).toBe(expected);
    expect(cleanText(cleanText(text))).toBe(expected);
  });

  it("leaves nothing a second call would clean, whatever escapes and redraws it mixes", () => {
    const text = fc
      .array(
        fc.constantFrom(
          "\u001b",
          "\u009b",
          "[",
          "]",
          "31m",
          "(B",
          "\u0007",
          "\\",
          "\r",
          "\n",
          "a",
          " ",
        ),
        { maxLength: 40 },
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (value) => {
        // Escapes nested deeper than the passes keep what the last pass left (below).
        fc.pre(passesToClean(value) < CLEAN_PASSES);
        const once = cleanText(value);
        expect(cleanText(once)).toBe(once);
      }),
      { numRuns: 3000 },
    );
  });
});

/**
 * The reference: one pass of the pattern and the redraws over the whole text, as cleanText
 * makes each of its passes.
 */
const ANSI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal control codes are the point
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[()*+][0-~]|\x1b[ -/]*[0-~]/g;

function referenceCleanOnce(text: string): string {
  const lines = text.replace(ANSI, "").split("\n");
  return lines
    .map((line, position) => {
      const crlf = position < lines.length - 1 && line.endsWith("\r");
      const body = crlf ? line.slice(0, -1) : line;
      if (!body.includes("\r")) return line;
      const visible = body.split("\r").findLast((segment) => segment !== "") ?? "";
      return crlf ? `${visible}\r` : visible;
    })
    .join("\n");
}

/** The passes that change `text` before one changes nothing. */
function passesToClean(text: string): number {
  let passes = 0;
  for (let current = text, next = referenceCleanOnce(text); next !== current; passes++) {
    current = next;
    next = referenceCleanOnce(current);
  }
  return passes;
}

/** `text` after at most `passes` passes, stopping at one that changes nothing. */
function cleanedIn(text: string, passes: number): string {
  let current = text;
  for (let pass = 0; pass < passes; pass++) {
    const next = referenceCleanOnce(current);
    if (next === current) break;
    current = next;
  }
  return current;
}

describe("cleanText on nested sequences", () => {
  /** Escapes, what introduces, continues and ends a sequence, and line ends. */
  const piece = fc.constantFrom(
    ESC,
    ESC,
    ESC,
    "\x9b",
    "[",
    "]",
    "P",
    "_",
    "(",
    "+",
    "7",
    "m",
    "1",
    ";",
    "?",
    " ",
    "/",
    "\x07",
    "\\",
    `${ESC}\\`,
    `${ESC}[`,
    `${ESC}]`,
    "\x9b1",
    "\r",
    "\n",
    "\r\n",
    "\u2028",
    "a",
    "é",
  );
  const flat = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(""));
  /** Text inside as many ESCs before it as ends after it: sequences that nest. */
  const nested = fc
    .tuple(fc.integer({ min: 1, max: 8 }), flat, fc.constantFrom("7", "m", "[m", "\\", "]"))
    .map(([depth, inside, end]) => ESC.repeat(depth) + inside + end.repeat(depth));
  const text = fc.array(fc.oneof(flat, nested), { maxLength: 4 }).map((parts) => parts.join(""));

  it("cleans until a pass changes nothing, in at most CLEAN_PASSES passes", () => {
    fc.assert(
      fc.property(text, (value) => {
        const cleaned = cleanText(value);
        expect(cleaned).toBe(cleanedIn(value, CLEAN_PASSES));
        if (passesToClean(value) <= CLEAN_PASSES) expect(cleaned).toBe(cleanedIn(value, Infinity));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it.each([
    [`${ESC}${ESC}7]abc${ESC}7\x07`, ""],
    [`${ESC}]a${ESC}[31m\x07`, "a\x07"],
    [`${ESC}${ESC}${ESC}777`, ""],
    [`${ESC}${ESC}[[m${ESC}\x9b1m`, `${ESC}`],
  ])("cleans %j to %j", (value, expected) => {
    expect(cleanText(value)).toBe(expected);
  });

  // Cleaned until nothing changes, each of these took one pass over the whole text per level of
  // nesting: time quadratic in the run of ESCs, minutes for each.
  it.each([
    ["ESCs then as many 7s", ESC.repeat(200_000) + "7".repeat(200_000), "7"],
    ["ESCs then as many `[m`s", ESC.repeat(200_000) + "[m".repeat(200_000), "[m"],
  ])("leaves %s (200,000 of each) nested as the last pass left them", (_name, value, end) => {
    const left = 200_000 - CLEAN_PASSES;
    expect(cleanText(value)).toBe(ESC.repeat(left) + end.repeat(left));
  });
});

describe("cleanText on line endings", () => {
  /** The redraw rule, line by line: what follows the last `\r` that has text after it. */
  function resolvedByLine(text: string): string {
    const out: string[] = [];
    const lines = text.split("\n");
    for (let at = 0; at < lines.length; at++) {
      let line = lines[at] as string;
      const ending = at < lines.length - 1 && line.endsWith("\r") ? "\r" : "";
      if (ending !== "") line = line.slice(0, -1);
      const shown = line.split("\r").filter((segment) => segment !== "");
      out.push((shown.at(-1) ?? "") + ending);
    }
    return out.join("\n");
  }

  it("resolves redraws as the line-by-line rule does, and leaves CRLF line endings alone", () => {
    const text = fc
      .array(fc.constantFrom("\r\n", "\r", "\n", "ab", " 45%", ""), { maxLength: 30 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (value) => {
        expect(cleanText(value)).toBe(resolvedByLine(value));
      }),
      { numRuns: 2000 },
    );
    const crlf = Array.from({ length: 1000 }, (_, line) => `line ${line}`).join("\r\n");
    expect(cleanText(crlf)).toBe(crlf);
  });

  /**
   * Sequences that never hold a line end, around redraws: a redrawn line is then read from its
   * last segment back, and the segments before the one kept are never read. Sequences alone in a
   * segment, one between a `\r` and its `\n`, an ESC cut off by a line end, both widths of text.
   */
  const redrawPiece = fc.constantFrom(
    "\r",
    "\r",
    "\n",
    "\r\n",
    `${ESC}[2K`,
    `${ESC}[36m`,
    `${ESC}[0m`,
    `${ESC}[`,
    `${ESC}(B`,
    `${ESC}7`,
    `${ESC}${ESC}[m`,
    ESC,
    "\x9b1m",
    "\x9b",
    "fetch",
    " 45%",
    "a",
    "✓",
    "\ud83d",
  );

  it("reads a redrawn line from its end as the pattern and the line-by-line rule read it", () => {
    const text = fc.array(redrawPiece, { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (value) => {
        expect(cleanText(value)).toBe(cleanedIn(value, CLEAN_PASSES));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it("reads redrawn lines the same with a string sequence anywhere in the text", () => {
    // A string sequence may hold a `\r` or `\n`: the whole text is then read in text order.
    const stringSequence = fc.constantFrom(`${ESC}]0;t\x07`, `${ESC}]8;;\r\n`, `${ESC}P\r${ESC}\\`);
    const text = fc
      .tuple(
        fc.array(redrawPiece, { maxLength: 20 }),
        stringSequence,
        fc.array(redrawPiece, { maxLength: 20 }),
      )
      .map(([before, sequence, after]) => before.join("") + sequence + after.join(""));
    fc.assert(
      fc.property(text, (value) => {
        expect(cleanText(value)).toBe(cleanedIn(value, CLEAN_PASSES));
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("resolves the redraws of a log of many lines in time linear in its length", () => {
    // Each line's start searched for from the text's start would read 10^11 units here.
    const redrawn = `${"\x1b[32m10%\x1b[0m\r50%\r\r100%\r\n".repeat(200_000)}done`;
    expect(cleanText(redrawn)).toBe(`${"100%\r\n".repeat(200_000)}done`);
    const bare = "ab\rc\n".repeat(200_000);
    expect(cleanText(bare)).toBe("c\n".repeat(200_000));
  });

  it.each([
    ["a megabyte of \\r", "\r".repeat(1_000_000), ""],
    ["a megabyte of \\r after a line", `done\r${"\r".repeat(1_000_000)}`, "done"],
    ["a line redrawn by sequences alone", `done${`\r${ESC}[2K`.repeat(250_000)}`, "done"],
    ["one long redrawn line", `${"50%\r".repeat(250_000)}100%\n`, "100%\n"],
  ])("reads %s in time linear in its length", (_name, value, expected) => {
    expect(cleanText(value)).toBe(expected);
  });
});

describe("stripEscapes", () => {
  /** The escape sequences as a pattern: what textclean replaced before it read them by hand. */
  const ANSI =
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal control codes is the point
    /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[()*+][0-~]|\x1b[ -/]*[0-~]/g;

  it("removes what the pattern matches, and nothing else", () => {
    // Escape starts, every class of byte a sequence reads, text of one and two bytes a unit,
    // and halves of a surrogate pair, alone or together.
    const piece = fc.constantFrom(
      "\x1b",
      "\x9b",
      "\x1b[",
      "\x1b]",
      "\x1bP",
      "\x1b(",
      "[",
      "]",
      "P",
      "X",
      "^",
      "_",
      "(",
      "+",
      "!",
      "/",
      "0",
      ";",
      "?",
      "m",
      "B",
      "~",
      "\\",
      "\x07",
      "\x7f",
      "a",
      " ",
      "\n",
      "\r",
      "é",
      "✓",
      "\ud83d",
      "\ude80",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        expect(stripEscapes(text)).toBe(text.replace(ANSI, ""));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it("gives back the same string when there is nothing to remove", () => {
    const text = "plain text, an escape with nothing after it \x1b";
    expect(stripEscapes(text)).toBe(text);
  });

  it("reads a log of many escapes and no C1 CSI in time linear in its length", () => {
    // Searched again for a C1 CSI at each ESC, 2 MB of colours took minutes.
    const line = "\x1b[32m+\x1b[0m pkg@1.0.0 \x1b[90m(3 ms)\x1b[0m\n";
    const text = line.repeat(50_000);
    expect(stripEscapes(text)).toBe("+ pkg@1.0.0 (3 ms)\n".repeat(50_000));
  });
});
