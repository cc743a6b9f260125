import { type BreakContext, MIN_CLEARED_SHARE, priceBreak } from "../cache/break-decision.js";
import { acceptEvent, headChange, headEvent, headEventPossible } from "../cache/head-decision.js";
import { clearableAtMost, estimateHead, tokensPerChar } from "../cache/head-estimate.js";
import { cacheLifetime } from "../cache/lifetime.js";
import { type CacheTreatment, overBudget } from "../cache/policy.js";
import { pricingFor, pricingName } from "../cache/pricing.js";
import type { Redecision } from "../cache/redecisions.js";
import { decide } from "./decide.js";
import { carriesTool } from "./expand-tool.js";
import type { CompactContext, Decided, Outcome, Turn } from "./turn.js";

/**
 * The priced head decision (§4a): a warm request is re-decided as cold when it is over the
 * context budget or when breaking its prefix pays, judged first from an estimate of the warm
 * result (no second run), then from what the re-decision really changed. A re-decision this
 * request came to before is judged again without a run; one that is taken is run for real.
 */
export async function decideHead(
  context: CompactContext,
  turn: Turn,
  warm: Decided,
): Promise<Outcome> {
  const { config, registry, memos } = context;
  const { request, history, treatment } = turn;
  const pricing = pricingFor(config.cache, request.shape.pricing);
  const breakContext: BreakContext = {
    pricing,
    history: history.head?.cost,
    previousAt: history.ledger.lastRequestAt ?? history.now,
    now: history.now,
    lifetimeMs: cacheLifetime(config.cache, history.ledger.learned).ms,
    received: request.tokensBefore,
  };
  const stay: Outcome = { treatment, decided: warm, pricing, kept: history.head?.cost?.after ?? 0 };
  if (treatment.state !== "warm" || history.agentCompaction) return stay;
  // A re-decision is estimated from what the components that reach back would clear.
  const estimable = request.names.some((name) => registry[name]?.reachesBack === true);
  if (!headEventPossible(config.cache, breakContext, warm.tokensAfter, estimable)) return stay;
  // Most warm turns could not clear enough to price a break however the estimate came out.
  const within = !overBudget(config.cache, warm.tokensAfter);
  const most = clearableAtMost(request.slotTokens, warm.run.decisions);
  if (within && most < MIN_CLEARED_SHARE * warm.tokensAfter) return stay;
  const perChar = tokensPerChar(request.transcript, request.tokensBefore);
  const estimate = estimateHead(
    {
      transcript: request.transcript,
      names: request.names,
      config,
      registry,
      tokens: request.tokens,
      received: request.slotTokens.output,
      perChar,
      replacements: memos.replacements,
    },
    {
      texts: warm.run.texts,
      decisions: warm.run.decisions,
      tokens: warm.tokensAfter,
      length: warm.text.length,
    },
  );
  const event = headEvent(config.cache, breakContext, estimate, estimable);
  if (event === undefined) return stay;
  const cold: CacheTreatment = { state: "cold", reason: event };
  const judge = (redecision: Redecision) => {
    if (redecision.decided === undefined) return undefined;
    const toolsChanged = carriesTool(warm, config, false, history) !== redecision.tool;
    const change = headChange(
      { text: warm.text, tokens: warm.tokensAfter },
      redecision.decided,
      toolsChanged,
      perChar,
    );
    return acceptEvent(event, config.cache, breakContext, change) ? change : undefined;
  };
  const { kept: expanded } = history.ledger;
  const { text, shape, names } = request;
  const known = memos.redecisions.get(text, shape.name, names, expanded);
  if (known !== undefined && judge(known) === undefined) return stay;
  const decided = await decide(context, request, history, cold);
  const redecision: Redecision =
    "bail" in decided
      ? { decided: undefined, tool: false }
      : {
          decided: { text: decided.text, tokens: decided.tokensAfter },
          tool: carriesTool(decided, config, true, history),
        };
  memos.redecisions.set(text, shape.name, names, expanded, redecision);
  const change = judge(redecision);
  if ("bail" in decided || change === undefined) return stay;
  const kept = Math.max(0, change.tokens - change.suffix);
  if (event !== "priced") return { treatment: cold, decided, pricing, kept };
  const price = priceBreak(breakContext, change);
  const name = pricingName(config.cache, shape.pricing);
  const pricedBreak = { pricing: name, netSaving: price.saving - price.cost };
  return { treatment: cold, decided, pricing, kept, pricedBreak };
}
