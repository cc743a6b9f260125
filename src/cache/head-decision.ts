import type { CacheConfig } from "../config/schema.js";
import { commonPrefixLength } from "../text/common-prefix.js";
import {
  type BreakContext,
  breakPossible,
  type HeadEstimate,
  priceBreak,
} from "./break-decision.js";
import { overBudget } from "./policy.js";

/**
 * Why a warm request's head is re-decided after all (§4a): it is over the context budget, or a
 * priced break pays. Either is one event that clears as much as the rules allow; the result is
 * frozen again.
 */
export type HeadEvent = "budget" | "priced";

/**
 * The event worth a re-decision of this warm request, judged from the estimate of what it would
 * change (cache/head-estimate.ts); `estimable` is false where the pipeline's reach-back cannot be
 * estimated, so only the budget is tried, and judged by the result.
 */
export function headEvent(
  config: CacheConfig,
  context: BreakContext,
  estimate: HeadEstimate,
  estimable: boolean,
): HeadEvent | undefined {
  if (overBudget(config, estimate.tokens)) {
    if (!estimable || estimate.cleared >= budgetClearance(config, estimate.tokens)) return "budget";
  }
  if (estimable && priceBreak(context, estimate).pays) return "priced";
  return undefined;
}

/**
 * Whether a warm request returned as `tokens` message tokens could have a head event at all,
 * before anything is estimated: it is over the context budget, or a break could pay in its
 * context (a history long enough, cached tokens not free). headEvent is undefined otherwise.
 */
export function headEventPossible(
  config: CacheConfig,
  context: BreakContext,
  tokens: number,
  estimable: boolean,
): boolean {
  return overBudget(config, tokens) || (estimable && breakPossible(context));
}

/** Whether the re-decided result is worth what it breaks: `change` is what it really changed. */
export function acceptEvent(
  event: HeadEvent,
  config: CacheConfig,
  context: BreakContext,
  change: HeadEstimate,
): boolean {
  if (change.cleared <= 0) return false;
  if (event === "priced") return priceBreak(context, change).pays;
  return change.cleared >= budgetClearance(config, change.tokens);
}

/**
 * What a budget event must clear: down to the low-water mark, or at least the room between the
 * mark and the budget. A smaller clearance would leave the next turn over budget again for
 * nothing, so the request stays warm instead: never a break on every turn over the budget.
 */
function budgetClearance(config: CacheConfig, tokens: number): number {
  const budget = config.context_budget_tokens;
  const lowWater = Math.floor(budget * config.budget_low_water);
  return Math.max(1, Math.min(tokens - lowWater, budget - lowWater));
}

/**
 * What a re-decision really changed, from the warm and the re-decided bodies: the tokens it
 * removed, and what the warm body holds from the first character that differs on, at `perChar`
 * tokens a character (cache/head-estimate.ts; all of it when the tools that head the prompt
 * changed).
 */
export function headChange(
  warm: { readonly text: string; readonly tokens: number },
  cold: { readonly text: string; readonly tokens: number },
  toolsChanged: boolean,
  perChar: number,
): HeadEstimate {
  const cleared = warm.tokens - cold.tokens;
  if (toolsChanged) return { tokens: warm.tokens, cleared, suffix: warm.tokens };
  const first = commonPrefixLength(warm.text, cold.text);
  if (first === warm.text.length && first === cold.text.length) {
    return { tokens: warm.tokens, cleared: 0, suffix: 0 };
  }
  const suffix = Math.max(cleared, Math.round((warm.text.length - first) * perChar));
  return { tokens: warm.tokens, cleared, suffix };
}
