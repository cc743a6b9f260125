import { isExcluded } from "../config/excluded-tools.js";
import type { ComponentName, Config } from "../config/schema.js";
import type { Registry } from "../pipeline/run.js";
import type { TokenCounter } from "../pipeline/tokens.js";
import type { Decision } from "../session/ledger.js";
import type { Transcript } from "../wire/transcript.js";
import type { HeadEstimate } from "./break-decision.js";

/** Tokens a mask placeholder (peek, marker, hint) is taken to cost. */
export const MASK_PLACEHOLDER_TOKENS = 40;

/** What a warm request was decided as: each output's text and decision, and the body's size. */
export interface WarmResult {
  readonly texts: readonly string[];
  readonly decisions: readonly Decision[];
  /** Message tokens of the returned body, and its length in characters. */
  readonly tokens: number;
  readonly length: number;
}

/**
 * What re-deciding the head of a warm request would change, estimated from the warm result
 * alone (no second run): the outputs mask would take (older than its newest `keep_recent`, at
 * least `min_tokens`, not already offloaded, not excluded) give X less a placeholder each; S is
 * the returned body's tokens from the first of them on, by its share of the characters. Token
 * counts come from the counter's memo, which the run has already filled for these texts.
 */
export function estimateHead(
  request: {
    readonly transcript: Transcript;
    readonly names: readonly ComponentName[];
    readonly config: Config;
    readonly registry: Registry;
    readonly tokens: TokenCounter;
  },
  warm: WarmResult,
): HeadEstimate {
  const { transcript, names, config, registry, tokens } = request;
  const none = { tokens: warm.tokens, cleared: 0, suffix: 0 };
  if (!names.includes("mask") || registry.mask === undefined) return none;
  const options = config.components.mask;
  const firstRecent = transcript.outputs.length - options.keep_recent;
  let cleared = 0;
  let first: number | undefined;
  for (const output of transcript.outputs) {
    if (output.index >= firstRecent) break;
    const decision = warm.decisions[output.index] ?? [];
    if (decision.some((name) => registry[name]?.kind === "offload")) continue;
    if (isExcluded(output.call?.name, config, "mask")) continue;
    const text = warm.texts[output.index] ?? output.text;
    if (!tokens.atLeast(text, Math.max(options.min_tokens, MASK_PLACEHOLDER_TOKENS + 1))) continue;
    cleared += tokens.estimate(text) - MASK_PLACEHOLDER_TOKENS;
    first ??= output.index;
  }
  if (first === undefined || warm.length === 0) return none;
  const start = transcript.outputSpans[first]?.start ?? 0;
  // The warm body's characters before this output are the received ones: only outputs change.
  const share = Math.max(0, warm.length - start) / warm.length;
  const suffix = Math.max(cleared, Math.round(warm.tokens * share));
  return { tokens: warm.tokens, cleared, suffix };
}
