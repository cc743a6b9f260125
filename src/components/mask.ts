import { peekOf } from "../content/peek.js";
import type { RequestComponent } from "../pipeline/types.js";
import { markedPhrase } from "./marked-phrase.js";
import { maskSelection } from "./mask/selection.js";

export const MASKED = "[older tool output masked]";

/**
 * Offload that reaches back and hides by need, not by age (§5): of the tool outputs older than
 * the newest `keep_recent`, those superseded by a later output on the same target go first, and
 * those the agent no longer works with follow; the ones it still works with (named by its newest
 * calls or words, or the read of a file it has edited since) are kept within
 * `working_set_tokens` (mask/selection.ts). Each is replaced by a placeholder that names what it
 * hid (`[older tool output masked: Read /src/app.py lines 1-40]`). It changes an output because
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
    const { outputs } = context;
    const text = (index: number) => outputs[index]?.text ?? "";
    const indexes = maskSelection({
      outputs,
      agentText: context.agentText,
      keepRecent: options.keep_recent,
      workingSetTokens: options.working_set_tokens,
      mayTake: (index) =>
        context.mayChange(index) && context.atLeastTokens(text(index), options.min_tokens),
      readable: (index) => !context.wasOffloaded(index),
      tokensWithin: (index, limit) =>
        context.atLeastTokens(text(index), limit + 1) ? undefined : context.tokens(text(index)),
    });
    return indexes.map((index) => ({ index }));
  },
  reduce(output, _options, context) {
    // A head-peek of what was hidden (the read's path and lines, the command, the first line),
    // so the model can tell whether it needs to expand it (§5 Fidelity).
    const peek = peekOf(output);
    const placeholder = peek === "" ? MASKED : `${MASKED.slice(0, -1)}: ${peek}]`;
    return markedPhrase(placeholder, context.marker(output.text)) + context.hint;
  },
} satisfies RequestComponent<"mask">;
