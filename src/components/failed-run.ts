import { carriesMarker } from "../expand/markers.js";
import type { RequestComponent, Selection } from "../pipeline/types.js";
import { markedPhrase } from "./marked-phrase.js";
import { detectRun } from "./test-runs.js";

export const SUPERSEDED = "[superseded by a later run]";

/**
 * Offload that reaches back: of two or more test/build runs of one target (see test-runs.ts),
 * every earlier run that failed is replaced by a placeholder. The last run of each target is
 * always kept, and so is every earlier run that passed or whose outcome cannot be read. A later
 * run changes an earlier one, so it decides only when the head may be re-decided (§4a).
 */
export const failedRun = {
  name: "failed_run",
  kind: "offload",
  scope: "request",
  reachesBack: true,
  reducesText: true,
  bounds: false,
  readsLines: false,
  select(options, context) {
    // A run supersedes another only while it can be read: reduced or marked runs do not count.
    const runs = context.outputs
      .filter((output) => !context.wasOffloaded(output.index) && !carriesMarker(output.text))
      .map((output) => ({ output, run: detectRun(output) }));
    const lastOfTarget = new Map<string, number>();
    for (const { output, run } of runs) {
      if (run !== undefined) lastOfTarget.set(run.target, output.index);
    }
    const picked: Selection[] = [];
    for (const { output, run } of runs) {
      if (run === undefined || lastOfTarget.get(run.target) === output.index) continue;
      if (!run.failed) continue;
      if (!context.mayChange(output.index)) continue;
      if (!context.atLeastTokens(output.text, options.min_tokens)) continue;
      picked.push({ index: output.index });
    }
    return picked;
  },
  reduce(output, _options, context) {
    return markedPhrase(SUPERSEDED, context.marker(output.text));
  },
} satisfies RequestComponent<"failed_run">;
