import type { OutputComponent } from "../pipeline/types.js";
import { codeAt } from "../text/char-code.js";

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

const within = (code: number, low: number, high: number) => code >= low && code <= high;

/** Where a CSI whose parameters start at `from` ends, or -1 when it has no final byte. */
function csiEnd(text: string, from: number): number {
  let at = from;
  while (within(codeAt(text, at), 0x30, 0x3f)) at++;
  while (within(codeAt(text, at), 0x20, 0x2f)) at++;
  return within(codeAt(text, at), 0x40, 0x7e) ? at + 1 : -1;
}

/** Where the escape sequence that starts at `at` (an ESC or a C1 CSI) ends, or -1 for none. */
function escapeEnd(text: string, at: number): number {
  if (codeAt(text, at) === C1_CSI) return csiEnd(text, at + 1);
  const second = codeAt(text, at + 1);
  if (second === 0x5b) {
    const end = csiEnd(text, at + 2);
    if (end !== -1) return end;
  } else if (second === 0x5d) {
    let end = at + 2;
    while (end < text.length && codeAt(text, end) !== BEL && codeAt(text, end) !== ESC) end++;
    if (codeAt(text, end) === BEL) return end + 1;
    if (codeAt(text, end) === ESC && codeAt(text, end + 1) === 0x5c) return end + 2;
  } else if (second === 0x50 || second === 0x58 || second === 0x5e || second === 0x5f) {
    const end = text.indexOf("\x1b", at + 2);
    if (end !== -1 && codeAt(text, end + 1) === 0x5c) return end + 2;
  } else if (within(second, 0x28, 0x2b) && within(codeAt(text, at + 2), 0x30, 0x7e)) {
    return at + 3;
  }
  let end = at + 1;
  while (within(codeAt(text, end), 0x20, 0x2f)) end++;
  return within(codeAt(text, end), 0x30, 0x7e) ? end + 1 : -1;
}

/**
 * The escapes of a text in order: the next ESC or C1 CSI at or after a position, -1 for none.
 * Each kind is searched again only once passed: a log without a C1 CSI is not searched to its
 * end for one at every ESC.
 */
function escapeStarts(text: string): (from: number) => number {
  let esc = text.indexOf("\x1b");
  let csi = text.indexOf("\x9b");
  return (from) => {
    if (esc !== -1 && esc < from) esc = text.indexOf("\x1b", from);
    if (csi !== -1 && csi < from) csi = text.indexOf("\x9b", from);
    return csi === -1 || (esc !== -1 && esc < csi) ? esc : csi;
  };
}

/**
 * `text` without its escape sequences (the pattern above, every match replaced by nothing).
 * What is kept is copied unit by unit into a buffer and read back as one string: a coloured log
 * has a sequence every dozen characters, and the pattern's replace costs about 170 ns a match
 * (9 MB: 80 ms, this 15-30 ms). The buffer holds a byte a unit, read as Latin-1, when every unit
 * of the text fits one (a one-byte string, as the text's own), else two, read as UTF-16 (every
 * unit as it was, a lone surrogate too).
 */
export function stripEscapes(text: string): string {
  const nextEscape = escapeStarts(text);
  let at = nextEscape(0);
  if (at === -1) return text;
  // A unit a byte when every unit of the text fits one (most logs), else two, low byte first.
  const width = WIDER_THAN_A_BYTE.test(text) ? 2 : 1;
  const kept = new Uint8Array(text.length * width);
  let length = 0;
  let from = 0;
  const copy = (to: number) => {
    if (width === 1) {
      for (let unit = from; unit < to; unit++) kept[length++] = codeAt(text, unit);
      return;
    }
    for (let unit = from; unit < to; unit++) {
      const code = codeAt(text, unit);
      kept[length++] = code & 0xff;
      kept[length++] = code >>> 8;
    }
  };
  while (at !== -1) {
    const end = escapeEnd(text, at);
    if (end === -1) {
      at = nextEscape(at + 1);
      continue;
    }
    copy(at);
    from = end;
    at = nextEscape(end);
  }
  if (from === 0) return text;
  copy(text.length);
  return Buffer.from(kept.buffer, 0, length).toString(width === 1 ? "latin1" : "utf16le");
}

const WIDER_THAN_A_BYTE = /[\u0100-\uffff]/;

/**
 * Reformat: strips ANSI escape sequences and carriage-return progress redraws.
 *
 * A bare `\r` (one not followed by `\n`) returns the cursor to the start of the line, so of the
 * segments it separates only the last non-empty one is what a terminal leaves visible; that one
 * is kept (a shorter final segment would, on a real terminal, leave the tail of a longer earlier
 * one visible — progress redraws rewrite whole lines, so this is not reproduced). `\r\n` line
 * endings are line endings, not redraws: they are kept byte for byte.
 */
export const textclean = {
  name: "textclean",
  kind: "reformat",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: false,
  reduce(output, options, context) {
    const cleaned = cleanText(output.text);
    if (cleaned === output.text) return undefined;
    return context.atLeastTokens(output.text, options.min_tokens) ? cleaned : undefined;
  },
} satisfies OutputComponent<"textclean">;

/**
 * Passes over a text at most. Removing a sequence can join an ESC to the text after it (`ESC ESC
 * a` → `ESC a`), so a text is cleaned again while a pass changes it; but each pass reads the whole
 * text, and escapes nested one in another (`ESC ESC ESC 7 7 7`) lose one level a pass: a run of
 * them would take time quadratic in its length. Terminal output nests one level, rarely two;
 * what is nested deeper keeps the escapes the last pass left.
 */
export const CLEAN_PASSES = 4;

export function cleanText(text: string): string {
  let current = text;
  for (let pass = 0; pass < CLEAN_PASSES; pass++) {
    const next = cleanOnce(current);
    if (next === current) return current;
    current = next;
  }
  return current;
}

function cleanOnce(text: string): string {
  const withoutEscapes = stripEscapes(text);
  if (!hasBareReturn(withoutEscapes)) return withoutEscapes;
  const lines = withoutEscapes.split("\n");
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

/**
 * Whether `text` holds a `\r` that is not the first half of a `\r\n`: without one there is no
 * redraw to resolve, and a log with CRLF line endings is not split and joined again for nothing.
 */
function hasBareReturn(text: string): boolean {
  for (let at = text.indexOf("\r"); at >= 0; at = text.indexOf("\r", at + 1)) {
    if (codeAt(text, at + 1) !== 0x0a) return true;
  }
  return false;
}
