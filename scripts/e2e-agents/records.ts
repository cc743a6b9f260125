import type { Plan, RequestKind } from "./model/plan.js";
import type { PromptUsage } from "./model/prompt-cache.js";

/**
 * What the harness records of a run: each exchange between a CLI and the service (seen by the
 * tap), each request the service made of the scripted model, and each WebSocket upgrade attempt.
 * Times are milliseconds on the harness's monotonic clock; they order events and measure the
 * upgrade fallback, nothing else.
 */

/** Header name the tap adds to every forwarded request, so upstream requests find their exchange. */
export const EXCHANGE_HEADER = "x-e2e-exchange";

/** Raw header pairs as received, names in their own case. */
export type RawHeaders = readonly string[];

export interface Exchange {
  readonly id: string;
  /** Which CLI run of the scenario made it. */
  readonly run: string;
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: RawHeaders;
  readonly requestBody: string;
  readonly startedAt: number;
  status: number;
  responseHeaders: RawHeaders;
  responseBody: string;
  endedAt: number;
  /** Set when the connection broke before the response ended. */
  error?: string;
}

export interface UpgradeAttempt {
  readonly id: string;
  readonly run: string;
  readonly url: string;
  readonly requestHeaders: RawHeaders;
  readonly startedAt: number;
  /** The status line the service answered with, when it answered. */
  statusLine?: string;
  answeredAt?: number;
}

export interface UpstreamRequest {
  readonly seq: number;
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly rawHeaders: RawHeaders;
  readonly exchange: string | undefined;
  readonly body: string;
  kind: RequestKind | "count_tokens" | "models" | "unknown";
  plan?: Plan;
  /** The `context_guru_expand` call id the model answered with. */
  expandCall?: string;
  /** Thinking signatures, encrypted reasoning and compaction contents the model emitted. */
  emitted: string[];
  usage?: PromptUsage;
  /** The token count a count_tokens call was answered with. */
  counted?: number;
  status?: number;
}

/** The value of a header in raw pairs (the first, case-insensitive), or undefined. */
export function headerValue(headers: RawHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (let index = 0; index + 1 < headers.length; index += 2) {
    if (headers[index]?.toLowerCase() === wanted) return headers[index + 1];
  }
  return undefined;
}
