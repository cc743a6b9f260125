import { isFactClass } from "../content/content-class.js";
import type { OutputComponent } from "../pipeline/types.js";
import { linesOf } from "../text/lines.js";
import { markedPhrase } from "./marked-phrase.js";
import { collapseJsonItems, collapseRecords } from "./record-collapse.js";

/**
 * Offload: an output over `max_tokens` keeps its first `head_lines` and last `tail_lines` lines;
 * the lines between become one line `… (N lines omitted)` + T. The marker resolves to the whole
 * original output. A final newline is not counted as a line and is kept; outputs with no more
 * than head + tail lines are left alone. A file read, diff, search result or structured document
 * is the fact the agent asked for (§5 Fidelity): it is collapsed only over `max_fact_tokens`; a
 * table or YAML document by whole records (record-collapse.ts: the first and last records within
 * `head_lines` and `tail_lines`, every record with an error or a status that is not normal, a
 * count where records were left out), and one JSON document by whole items of its array
 * (collapseJsonItems) or not at all.
 */
export const collapse = {
  name: "collapse",
  kind: "offload",
  scope: "output",
  reachesBack: false,
  bounds: true,
  reduce(output, options, context) {
    const { text, contentClass } = output;
    const budget = isFactClass(contentClass) ? options.max_fact_tokens : options.max_tokens;
    if (contentClass === "json") {
      // Items, not lines: a document on one line is shortened as one spread over many.
      if (!context.atLeastTokens(text, budget + 1)) return undefined;
      const shown = collapseJsonItems(text, options.head_lines, options.tail_lines);
      return shown && markedPhrase(shown, context.marker(text));
    }
    const finalNewline = text.endsWith("\n");
    const lines = linesOf(text);
    const omitted = lines.length - options.head_lines - options.tail_lines;
    if (omitted <= 0) return undefined;
    if (!context.atLeastTokens(text, budget + 1)) return undefined;
    if (contentClass === "yaml" || contentClass === "table") {
      const marker = context.marker(text);
      const kept = collapseRecords(
        lines,
        contentClass,
        options.head_lines,
        options.tail_lines,
        (phrase) => markedPhrase(phrase, marker),
      );
      return kept && kept.join("\n") + (finalNewline ? "\n" : "");
    }
    const phrase = `\u2026 (${omitted} lines omitted)`;
    const kept = [
      ...lines.slice(0, options.head_lines),
      markedPhrase(phrase, context.marker(text)),
      ...lines.slice(lines.length - options.tail_lines),
    ];
    return kept.join("\n") + (finalNewline ? "\n" : "");
  },
} satisfies OutputComponent<"collapse">;
