import { carriesMarker } from "../expand/markers.js";
import type { Change, RequestComponent } from "../pipeline/types.js";
import { markedPhrase } from "./marked-phrase.js";

export const MASKED = "[older tool output masked]";

/**
 * Offload: every tool output older than the newest `keep_recent` (by position among the
 * request's tool outputs) is replaced by a placeholder. Sticky: an output masked earlier in the
 * session stays masked even when it is among the newest again, so the bytes an agent re-sends
 * stay stable turn after turn.
 */
export const mask = {
  name: "mask",
  kind: "offload",
  scope: "request",
  reduce(options, context) {
    const changes: Change[] = [];
    const firstRecent = context.outputs.length - options.keep_recent;
    for (const [position, output] of context.outputs.entries()) {
      if (carriesMarker(output.text)) continue;
      if (position >= firstRecent && !context.wasReduced(output.text)) continue;
      if (!context.atLeastTokens(output.text, options.min_tokens)) continue;
      const text = markedPhrase(MASKED, context.marker(output.text)) + context.hint;
      changes.push({ index: output.index, text });
    }
    return changes;
  },
} satisfies RequestComponent<"mask">;
