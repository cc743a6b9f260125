import { isRecord } from "../wire/is-record.js";

/**
 * What the model's server says it served from its prompt cache for one request (§4a), in its
 * own tokens: `cachedTokens` of `inputTokens` prompt tokens in all (cached ones included).
 */
export interface ServedUsage {
  readonly cachedTokens: number;
  readonly inputTokens: number;
}

/** The usage shapes a response may carry. */
export type UsageFormat = "chat" | "anthropic" | "responses";

/**
 * The served cache of a usage object: Chat Completions (OpenAI, vLLM) `prompt_tokens` and
 * `prompt_tokens_details.cached_tokens`; Anthropic `input_tokens` (uncached only) plus
 * `cache_read_input_tokens` and `cache_creation_input_tokens`; Responses `input_tokens` and
 * `input_tokens_details.cached_tokens`. Undefined when the object carries no prompt count or no
 * cached count: a server that does not report its cache (vLLM without
 * `--enable-prompt-tokens-details`) says nothing about it, and reading that as "nothing cached"
 * would teach every session that its cache is always cold.
 */
export function servedUsage(format: UsageFormat, usage: unknown): ServedUsage | undefined {
  if (!isRecord(usage)) return undefined;
  if (format === "anthropic") {
    const uncached = count(usage.input_tokens);
    const read = count(usage.cache_read_input_tokens);
    if (uncached === undefined || read === undefined) return undefined;
    const written = count(usage.cache_creation_input_tokens) ?? 0;
    return { cachedTokens: read, inputTokens: uncached + read + written };
  }
  const inputTokens = count(format === "chat" ? usage.prompt_tokens : usage.input_tokens);
  if (inputTokens === undefined) return undefined;
  const details = format === "chat" ? usage.prompt_tokens_details : usage.input_tokens_details;
  const cached = isRecord(details) ? count(details.cached_tokens) : undefined;
  if (cached === undefined) return undefined;
  return { cachedTokens: Math.min(cached, inputTokens), inputTokens };
}

/**
 * Anthropic streams report usage in two parts: `message_start` carries the input counts and
 * `message_delta` may repeat them; a later part overrides the fields it has.
 */
export function mergeAnthropicUsage(
  earlier: Record<string, unknown> | undefined,
  later: unknown,
): Record<string, unknown> | undefined {
  if (!isRecord(later)) return earlier;
  const merged: Record<string, unknown> = { ...earlier };
  for (const [key, value] of Object.entries(later)) {
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
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

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? Math.floor(value)
    : undefined;
}
