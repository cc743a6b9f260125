import type { OutputComponent } from "../pipeline/types.js";
import { parseJsonDocument } from "./json-document.js";
import { joinTokens } from "./json-tokens.js";

/**
 * Reformat: a tool output that is exactly one JSON object or array becomes compact JSON.
 *
 * Lossless by construction: only whitespace between tokens is removed; every string, number
 * spelling (`1.0`, `1e3`, integers beyond 2^53) and escape is kept verbatim, so the compact text
 * parses to exactly what the original parsed to. Bare scalars (`42`, `"text"`) are left alone.
 */
export const format = {
  name: "format",
  kind: "reformat",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: false,
  reduce(output, options, context) {
    const document = parseJsonDocument(output.text);
    if (document === undefined) return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    const compact = joinTokens(document.text, document.tokens);
    return compact === output.text ? undefined : compact;
  },
} satisfies OutputComponent<"format">;
