import type { OutputComponent } from "../pipeline/types.js";
import { cleanText } from "../text/terminal.js";

/**
 * Reformat: strips ANSI escape sequences and carriage-return progress redraws (cleanText,
 * src/text/terminal.ts).
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
