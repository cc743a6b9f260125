import { isStructuredClass } from "../content/content-class.js";
import type { OutputComponent } from "../pipeline/types.js";
import { splitLines } from "../text/lines.js";
import type { ToolCall, ToolOutput } from "../wire/types.js";
import { commandOf, commandsOf } from "./cmdfilter/command.js";
import { collapseFacts } from "./cmdfilter/fact-collapse.js";
import { applyPlan } from "./cmdfilter/filter.js";
import { filterFor, type Selection } from "./cmdfilter/index.js";
import { OutputLines } from "./cmdfilter/output-lines.js";
import { isListing } from "./cmdfilter/search.js";
import { withMarkerLine } from "./marked-phrase.js";

/**
 * `cmdfilter` (§5, Offload): per-command filters for shell tool outputs. The command comes from
 * the paired call (`input.command` / `input.cmd`).
 * - Search results and diffs (the output's content class, src/content/) are facts: they come
 *   back whole, or over a budget as a head and a tail with a note counting what was left out
 *   (`cmdfilter/fact-collapse.ts`). File reads are left alone.
 * - Any other output goes to the filter `cmdfilter/index.ts` picks for the command (pytest,
 *   jest/vitest, installs, git log/status, docker/kubectl); each filter file documents what it
 *   drops. Every run of dropped lines is noted where it was (`… (12 passed tests)`), no line
 *   with an error word (error, fail, exception, panic, fatal, traceback, denied, not found) is
 *   ever dropped, and the result always keeps lines of the output itself.
 *
 * Result: the kept lines joined by `\n`, then `\n` + T on its own last line (T alone when the
 * kept text already ends with `\n`); in off mode nothing is appended. Undefined when the command
 * is not recognised, nothing is dropped, or the output is under `min_tokens`.
 */
export const cmdfilter: OutputComponent<"cmdfilter"> = {
  name: "cmdfilter",
  kind: "offload",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: true,
  reduce(output, options, context) {
    const reading = output.call && readingOf(output.call);
    if (reading === undefined || output.contentClass === "file") return undefined;
    // Structured documents are shortened by whole records only (collapse, smartcrush).
    if (isStructuredClass(output.contentClass)) return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    const kept = filtered(output, reading);
    if (!kept) return undefined;
    return withMarkerLine(kept.join("\n"), context.marker(output.text));
  },
};

/** What cmdfilter reads of a call's command, each part once it is needed. */
interface CommandReading {
  readonly command: string;
  /** Every command lists paths (`ls`, `find`, …), so its search results are paths alone. */
  listing?: boolean;
  /** The filter for the command, null when none fits. */
  selection?: Selection | null;
}

/**
 * Readings of the calls seen so far: many outputs may answer one call, and its command may be
 * long, so it is read once a call. Held only while the call itself is.
 */
const readings = new WeakMap<ToolCall, CommandReading | null>();

function readingOf(call: ToolCall): CommandReading | undefined {
  let reading = readings.get(call);
  if (reading === undefined) {
    const command = commandOf(call);
    reading = command === undefined ? null : { command };
    readings.set(call, reading);
  }
  return reading ?? undefined;
}

function filtered(output: ToolOutput, reading: CommandReading): string[] | undefined {
  const { contentClass } = output;
  if (contentClass === "search" || contentClass === "diff") {
    reading.listing ??= isListingCommand(reading.command);
    return collapseFacts(splitLines(output.text), contentClass, reading.listing);
  }
  reading.selection ??= filterFor(reading.command) ?? null;
  const { selection } = reading;
  // The output is read as lines only for a filter: a million lines of a command no filter reads
  // (`seq`) take a third of a second to split.
  if (!selection) return undefined;
  const lines = new OutputLines(output.text);
  return applyPlan(lines, selection.filter.plan(lines, selection.argv));
}

function isListingCommand(command: string): boolean {
  const commands = commandsOf(command);
  return commands.length > 0 && commands.every(isListing);
}
