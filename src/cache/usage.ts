import { isRecord } from "../wire/is-record.js";

/**
 * What the model's server says it served from its prompt cache for one request (§4a), in its
 * own tokens: `cachedTokens` of `inputTokens` prompt tokens in all (cached ones included).
 */
export interface ServedUsage {
  readonly cachedTokens: number;
  readonly inputTokens: number;
}

/**
 * The served cache of an OpenAI-style usage object (Chat Completions — OpenAI, vLLM —
 * `prompt_tokens` and `prompt_tokens_details.cached_tokens`; Responses `input_tokens` and
 * `input_tokens_details.cached_tokens`): `promptKey` names the prompt count (cached tokens
 * included), `detailsKey` the object that holds `cached_tokens`. Undefined when the object
 * carries no prompt count or no cached count: a server that does not report its cache (vLLM
 * without `--enable-prompt-tokens-details`) says nothing about it, and reading that as "nothing
 * cached" would teach every session that its cache is always cold. Each wire shape reads its
 * own usage (WireShape.usage).
 */
export function servedWithDetails(
  usage: unknown,
  promptKey: string,
  detailsKey: string,
): ServedUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const inputTokens = tokenCount(usage[promptKey]);
  if (inputTokens === undefined) return undefined;
  const details = usage[detailsKey];
  const cached = isRecord(details) ? tokenCount(details.cached_tokens) : undefined;
  if (cached === undefined) return undefined;
  return { cachedTokens: Math.min(cached, inputTokens), inputTokens };
}

/**
 * Prompts shorter than this are not cached by OpenAI or Anthropic (their minimum cacheable
 * prefix): a miss on one says nothing about how long the cache lives.
 */
export const MIN_CACHEABLE_TOKENS = 1024;

/** The share of a reference prefix that must be served from cache to call a request a hit. */
export const HIT_SHARE = 0.5;

/**
 * Whether the server served the request from cache: at least half of `referenceTokens` (the
 * session's previous prompt, which a request that kept its prefix extends) read from cache, or,
 * with no previous prompt known, half of this one.
 */
export function servedHit(served: ServedUsage, referenceTokens: number | undefined): boolean {
  const reference = Math.min(referenceTokens ?? served.inputTokens, served.inputTokens);
  return served.cachedTokens > 0 && served.cachedTokens >= reference * HIT_SHARE;
}

/** A token count as a usage object reports it: a finite non-negative number, floored. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? Math.floor(value)
    : undefined;
}
