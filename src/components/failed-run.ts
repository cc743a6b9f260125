import { carriesMarker } from "../expand/markers.js";
import type { Change, RequestComponent } from "../pipeline/types.js";
import { markedPhrase } from "./marked-phrase.js";
import { detectRun } from "./test-runs.js";

export const SUPERSEDED = "[superseded by a later run]";

/**
 * Offload: of two or more test/build runs of one target (see test-runs.ts), every earlier run
 * that failed is replaced by a placeholder. The last run of each target is always kept, and so
 * is every earlier run that passed or whose outcome cannot be read.
 */
export const failedRun = {
  name: "failed_run",
  kind: "offload",
  scope: "request",
  reduce(options, context) {
    const runs = context.outputs
      .filter((output) => !carriesMarker(output.text))
      .map((output) => ({ output, run: detectRun(output) }));
    const lastOfFamily = new Map<string, number>();
    for (const { output, run } of runs) {
      if (run !== undefined) lastOfFamily.set(run.target, output.index);
    }
    const changes: Change[] = [];
    for (const { output, run } of runs) {
      if (run === undefined || !run.failed) continue;
      if (lastOfFamily.get(run.target) === output.index) continue;
      if (!context.atLeastTokens(output.text, options.min_tokens)) continue;
      changes.push({
        index: output.index,
        text: markedPhrase(SUPERSEDED, context.marker(output.text)),
      });
    }
    return changes;
  },
} satisfies RequestComponent<"failed_run">;
