import type { CacheConfig } from "../config/schema.js";
import type { Provider } from "../wire/types.js";

/**
 * What the model server bills a prompt token (§4a, §11), in units of one uncached token: `read`
 * for a token served from the cached prefix, `write` for one it must prefill (and, on Anthropic,
 * write to the cache). vLLM serving and OpenAI bill a cached token at about a tenth: each decoded
 * token reads the cached context and holds it in KV memory. Only where a cached token is truly
 * free (`prefill-only`) is freezing always right.
 */
export interface Pricing {
  readonly read: number;
  readonly write: number;
}

export const ANTHROPIC_PRICING: Pricing = Object.freeze({ read: 0.1, write: 1.25 });
export const OPENAI_PRICING: Pricing = Object.freeze({ read: 0.1, write: 1 });
export const PREFILL_ONLY_PRICING: Pricing = Object.freeze({ read: 0, write: 1 });

/** The prices a request of shape `provider` is judged by under `cache.pricing`. */
export function pricingFor(config: Pick<CacheConfig, "pricing">, provider: Provider): Pricing {
  const { pricing } = config;
  if (typeof pricing === "object") return pricing;
  switch (pricing) {
    case "anthropic":
      return ANTHROPIC_PRICING;
    case "openai":
    case "vllm":
      return OPENAI_PRICING;
    case "prefill-only":
      return PREFILL_ONLY_PRICING;
    default:
      return provider === "anthropic" ? ANTHROPIC_PRICING : OPENAI_PRICING;
  }
}

/**
 * The name of the prices `pricingFor` applies, for metric labels: `auto` resolves by shape
 * (`anthropic`, else `openai`), explicit prices are `custom`.
 */
export type PricingName = "anthropic" | "openai" | "vllm" | "prefill-only" | "custom";

export const PRICING_NAMES: readonly PricingName[] = [
  "anthropic",
  "openai",
  "vllm",
  "prefill-only",
  "custom",
];

export function pricingName(config: Pick<CacheConfig, "pricing">, provider: Provider): PricingName {
  const { pricing } = config;
  if (typeof pricing === "object") return "custom";
  if (pricing === "auto") return provider === "anthropic" ? "anthropic" : "openai";
  return pricing;
}
