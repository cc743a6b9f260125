import { servedWithDetails } from "../../../cache/usage.js";
import { isRecord } from "../../is-record.js";
import type { UsageReading } from "../../shape.js";

/**
 * Responses usage: `input_tokens` and `input_tokens_details.cached_tokens`, at the top of a
 * response body and in the `response` of a stream's closing event.
 */
export const responsesUsage: UsageReading = {
  format: "responses",
  served: (usage) => servedWithDetails(usage, "input_tokens", "input_tokens_details"),
  fromEvent: (data, earlier) =>
    isRecord(data.response) && isRecord(data.response.usage) ? data.response.usage : earlier,
};
