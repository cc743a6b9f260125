import type { CacheConfig } from "../config/schema.js";

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

/**
 * The name of the prices `pricingFor` applies, for metric labels: `auto` resolves by shape
 * (each wire shape names its own, WireShape.pricing), explicit prices are `custom`.
 */
export type PricingName = "anthropic" | "openai" | "vllm" | "prefill-only" | "custom";

/** Prices known by name (`cache.pricing`, a wire shape's default). */
export type NamedPricing = Exclude<PricingName, "custom">;

export const PRICING_NAMES: readonly PricingName[] = [
  "anthropic",
  "openai",
  "vllm",
  "prefill-only",
  "custom",
];

const NAMED: Readonly<Record<NamedPricing, Pricing>> = {
  anthropic: ANTHROPIC_PRICING,
  openai: OPENAI_PRICING,
  vllm: OPENAI_PRICING,
  "prefill-only": PREFILL_ONLY_PRICING,
};

/**
 * The prices a request is judged by under `cache.pricing`; `auto` stands for `shapePricing`, the
 * prices of the request's wire shape.
 */
export function pricingFor(
  config: Pick<CacheConfig, "pricing">,
  shapePricing: NamedPricing,
): Pricing {
  const { pricing } = config;
  if (typeof pricing === "object") return pricing;
  return NAMED[pricing === "auto" ? shapePricing : pricing];
}

export function pricingName(
  config: Pick<CacheConfig, "pricing">,
  shapePricing: NamedPricing,
): PricingName {
  const { pricing } = config;
  if (typeof pricing === "object") return "custom";
  return pricing === "auto" ? shapePricing : pricing;
}
