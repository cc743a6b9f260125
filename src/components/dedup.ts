import { carriesMarker } from "../expand/markers.js";
import type { Change, RequestComponent } from "../pipeline/types.js";
import { markedPhrase } from "./marked-phrase.js";

export const DUPLICATE = "[identical to an earlier tool output]";

/**
 * Offload: a tool output identical to an earlier one is replaced by a placeholder; the first
 * copy stays. Outputs that already carry a marker are neither candidates nor originals.
 */
export const dedup = {
  name: "dedup",
  kind: "offload",
  scope: "request",
  reduce(options, context) {
    const changes: Change[] = [];
    const seen = new Set<string>();
    for (const output of context.outputs) {
      if (carriesMarker(output.text)) continue;
      if (!seen.has(output.text)) {
        seen.add(output.text);
        continue;
      }
      if (!context.atLeastTokens(output.text, options.min_tokens)) continue;
      changes.push({
        index: output.index,
        text: markedPhrase(DUPLICATE, context.marker(output.text)),
      });
    }
    return changes;
  },
} satisfies RequestComponent<"dedup">;
