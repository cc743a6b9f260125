import type { RequestComponent, Selection } from "../pipeline/types.js";
import { markedPhrase } from "./marked-phrase.js";

export const DUPLICATE = "[identical to an earlier tool output]";

/**
 * Offload: a tool output identical to an earlier, still readable one (verbatim or losslessly
 * repacked, never itself reduced) is replaced by a pointer to it. Only the later copy changes,
 * so it decides on a warm request too; the pipeline keeps the pointer only while the copy it
 * points to stays readable (§5 Fidelity).
 */
export const dedup = {
  name: "dedup",
  kind: "offload",
  scope: "request",
  reachesBack: false,
  bounds: false,
  readsLines: false,
  select(options, context) {
    const picked: Selection[] = [];
    const readable = new Map<string, number>();
    for (const output of context.outputs) {
      const earlier = readable.get(output.text);
      if (earlier === undefined) {
        if (!context.wasOffloaded(output.index)) readable.set(output.text, output.index);
        continue;
      }
      if (!context.mayChange(output.index)) continue;
      if (!context.atLeastTokens(output.text, options.min_tokens)) continue;
      picked.push({ index: output.index, refersTo: earlier });
    }
    return picked;
  },
  reduce(output, _options, context) {
    return markedPhrase(DUPLICATE, context.marker(output.text));
  },
} satisfies RequestComponent<"dedup">;
