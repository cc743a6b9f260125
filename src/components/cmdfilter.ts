import type { OutputComponent } from "../pipeline/types.js";
import { commandOf } from "./cmdfilter/command.js";
import { applyPlan } from "./cmdfilter/filter.js";
import { filterFor } from "./cmdfilter/index.js";
import { withMarkerLine } from "./marked-phrase.js";

/**
 * `cmdfilter` (§5, Offload): per-command filters for shell tool outputs. The command comes from
 * the paired call (`input.command` / `input.cmd`); `cmdfilter/index.ts` picks the filter
 * (pytest, jest/vitest, installs, git log/diff/status, grep/find, docker/kubectl), each filter
 * file documents what it drops and the notes it writes. No filter ever hides a line with an error
 * word (error, fail, exception, panic, fatal, traceback, denied, not found).
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
  reduce(output, options, context) {
    const command = commandOf(output.call);
    const selection = command === undefined ? undefined : filterFor(command);
    if (!selection || !context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    const lines = output.text.split("\n");
    const kept = applyPlan(lines, selection.filter.plan(lines, selection.argv));
    if (!kept) return undefined;
    return withMarkerLine(kept.join("\n"), context.marker(output.text));
  },
};
