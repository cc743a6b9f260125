import { type ServedUsage, tokenCount } from "../../../cache/usage.js";
import { isRecord } from "../../is-record.js";
import type { UsageReading } from "../../shape.js";

/**
 * Messages usage: `input_tokens` counts only the uncached prompt, beside
 * `cache_read_input_tokens` and `cache_creation_input_tokens`. A stream reports it in two parts:
 * `message_start` carries the input counts in `message.usage`, and `message_delta` may repeat
 * them; a later part overrides the fields it has.
 */
export const anthropicUsage: UsageReading = {
  format: "anthropic",
  served: anthropicServed,
  fromEvent(data, earlier) {
    if (data.type === "message_start" && isRecord(data.message)) {
      return mergeUsage(earlier, data.message.usage);
    }
    if (data.type === "message_delta") return mergeUsage(earlier, data.usage);
    return earlier;
  },
};

function anthropicServed(usage: unknown): ServedUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const uncached = tokenCount(usage.input_tokens);
  const read = tokenCount(usage.cache_read_input_tokens);
  if (uncached === undefined || read === undefined) return undefined;
  const written = tokenCount(usage.cache_creation_input_tokens) ?? 0;
  return { cachedTokens: read, inputTokens: uncached + read + written };
}

function mergeUsage(
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
