import type { Provider } from "../wire/types.js";

/**
 * Why the loop handed an expand-calling response (or one it could not yet tell apart from one)
 * back to the client as it was: `buffer_limit` and `deadline` are the bounds of holding it;
 * `no_messages`: the request has nothing to continue (no `messages`, Responses no `input`, or a
 * request chained on `previous_response_id` whose response carried no id).
 */
export type BailReason =
  | "other_tool"
  | "nothing_resolved"
  | "max_rounds"
  | "aggregation_failed"
  | "no_messages"
  | "buffer_limit"
  | "deadline";

/** Hooks the loop calls as it works; metrics subscribe to them. All optional. */
export interface ProxyEvents {
  /** A continuation round is about to re-invoke the upstream. */
  onRound?(): void;
  /** An expand id resolved to its original. */
  onResolved?(): void;
  /** An expand id could not be given back (unknown, expired, not in the request, malformed). */
  onMiss?(): void;
  onBail?(reason: BailReason): void;
  /**
   * The upstream gave no usable response and the client got `502` (unreachable, or it broke off
   * mid-response) or `504` (no headers in time); `cause` is the socket's error code when known.
   */
  onUpstreamFailure?(info: {
    readonly provider: Provider;
    readonly status: 502 | 504;
    readonly cause: string | undefined;
  }): void;
  /** The client got its response: streamed through, or buffered (JSON, or an SSE replay). */
  onResponse?(info: { readonly provider: Provider; readonly streamed: boolean }): void;
}
