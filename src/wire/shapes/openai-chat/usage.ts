import { servedWithDetails } from "../../../cache/usage.js";
import { isRecord } from "../../is-record.js";
import type { UsageReading } from "../../shape.js";

/**
 * Chat Completions usage (OpenAI, vLLM): `prompt_tokens` and
 * `prompt_tokens_details.cached_tokens`; a stream reports it in the chunk that carries `usage`.
 */
export const chatUsage: UsageReading = {
  format: "chat",
  served: (usage) => servedWithDetails(usage, "prompt_tokens", "prompt_tokens_details"),
  fromEvent: (data, earlier) => (isRecord(data.usage) ? data.usage : earlier),
};
