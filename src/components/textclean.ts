import type { OutputComponent } from "../pipeline/types.js";
import { codeAt } from "../text/char-code.js";

/**
 * ANSI escape sequences: CSI (`ESC [` params, intermediates, final; also the one-byte C1 CSI),
 * OSC (`ESC ]` … BEL or `ESC \`), DCS/SOS/PM/APC strings (`ESC P|X|^|_` … `ESC \`), both only
 * when terminated (an unterminated one loses just its `ESC ]`, never the text after it),
 * character-set designations (`ESC ( B`), and the remaining two-character escapes (`ESC 7`,
 * `ESC =`, `ESC M`, …).
 */
const ANSI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal control codes is the point
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[()*+][0-~]|\x1b[ -/]*[0-~]/g;

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
  const withoutEscapes =
    text.includes("\x1b") || text.includes("\x9b") ? text.replace(ANSI, "") : text;
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
