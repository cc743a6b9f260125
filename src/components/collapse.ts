import { isFactClass } from "../content/content-class.js";
import type { OutputComponent } from "../pipeline/types.js";
import { countLines, lineStartsOf } from "../text/lines.js";
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
  readsLines: false,
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
    if (contentClass === "yaml" || contentClass === "table") {
      if (lineStartsOf(text).count <= options.head_lines + options.tail_lines) return undefined;
      if (!context.atLeastTokens(text, budget + 1)) return undefined;
      const marker = context.marker(text);
      const kept = collapseRecords(
        text,
        contentClass,
        options.head_lines,
        options.tail_lines,
        (phrase) => markedPhrase(phrase, marker),
      );
      return kept && kept.join("\n") + (finalNewline ? "\n" : "");
    }
    const body = finalNewline ? text.slice(0, -1) : text;
    const ends = headAndTail(body, options.head_lines, options.tail_lines);
    if (ends === undefined) return undefined;
    if (!context.atLeastTokens(text, budget + 1)) return undefined;
    const phrase = `\u2026 (${ends.omitted} lines omitted)`;
    const kept = [ends.head, markedPhrase(phrase, context.marker(text)), ends.tail];
    return kept.filter((part) => part !== undefined).join("\n") + (finalNewline ? "\n" : "");
  },
} satisfies OutputComponent<"collapse">;

/**
 * The first `headLines` and the last `tailLines` lines of `text` (each joined by `\n`, undefined
 * for none), and how many lines lie between them; undefined when none does. Read from the
 * newlines at either end and counted in between, never split: an output of a million short lines
 * would be a million strings, to keep forty.
 */
function headAndTail(
  text: string,
  headLines: number,
  tailLines: number,
): { head?: string; tail?: string; omitted: number } | undefined {
  const omitted = countLines(text) - headLines - tailLines;
  if (omitted <= 0) return undefined;
  let headEnd = -1;
  for (let line = 0; line < headLines; line++) headEnd = text.indexOf("\n", headEnd + 1);
  let tailStart = text.length + 1;
  for (let line = 0; line < tailLines; line++)
    tailStart = text.lastIndexOf("\n", tailStart - 2) + 1;
  return {
    ...(headLines > 0 ? { head: text.slice(0, headEnd) } : {}),
    ...(tailLines > 0 ? { tail: text.slice(tailStart) } : {}),
    omitted,
  };
}
