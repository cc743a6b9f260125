import { peekOf } from "../content/peek.js";
import type { RequestComponent, Selection } from "../pipeline/types.js";
import { markedPhrase } from "./marked-phrase.js";

export const MASKED = "[older tool output masked]";

/**
 * Offload that reaches back: every tool output older than the newest `keep_recent` (by position
 * among the request's tool outputs) is replaced by a placeholder that names what it hid
 * (`[older tool output masked: Read /src/app.py lines 1-40]`). It changes an output because
 * newer ones arrived, so it decides only when the head may be re-decided (§4a); what it masked
 * then is replayed on later warm turns.
 */
export const mask = {
  name: "mask",
  kind: "offload",
  scope: "request",
  reachesBack: true,
  bounds: false,
  readsLines: false,
  select(options, context) {
    const picked: Selection[] = [];
    const firstRecent = context.outputs.length - options.keep_recent;
    for (const output of context.outputs) {
      if (output.index >= firstRecent) break;
      if (!context.mayChange(output.index)) continue;
      if (!context.atLeastTokens(output.text, options.min_tokens)) continue;
      picked.push({ index: output.index });
    }
    return picked;
  },
  reduce(output, _options, context) {
    // A head-peek of what was hidden (the read's path and lines, the command, the first line),
    // so the model can tell whether it needs to expand it (§5 Fidelity).
    const peek = peekOf(output);
    const placeholder = peek === "" ? MASKED : `${MASKED.slice(0, -1)}: ${peek}]`;
    return markedPhrase(placeholder, context.marker(output.text)) + context.hint;
  },
} satisfies RequestComponent<"mask">;
