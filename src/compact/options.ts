import type { CachePrediction } from "../cache/observation.js";
import type { CacheState, CacheTreatment } from "../cache/policy.js";
import type { PricingName } from "../cache/pricing.js";
import type { Config } from "../config/schema.js";
import type { NoExpandReason } from "../expand/inject.js";
import type { RunReport } from "../pipeline/report.js";
import type { Registry } from "../pipeline/run.js";
import type { Store } from "../store/types.js";
import type { ProviderChoice } from "../wire/provider-choice.js";
import type { Provider } from "../wire/types.js";

export interface CompactOptions {
  provider?: ProviderChoice;
  /** Explicit session id (header `x-context-guru-session`). */
  session?: string | undefined;
  /**
   * The session key a caller already derived from the body it parsed (the proxy routes), so a
   * job is placed on the worker that ran its session's last one without reading the body again
   * (src/compaction/job-session.ts). The compactor derives its own key; this names nothing.
   */
  placement?: string | undefined;
  /** Run exactly these components (header `x-context-guru-pipeline`). */
  pipeline?: readonly string[] | undefined;
  /** Named preset instead of the configured pipeline (`?preset=`). */
  preset?: string | undefined;
  /** What the caller knows of the model server's prompt cache (header `x-context-guru-cache`). */
  cache?: CacheState | undefined;
  signal?: AbortSignal;
  /**
   * Called once, right before the store write that commits the answer; false means the answer
   * is no longer wanted (its deadline passed): nothing is written and the body comes back as it
   * came, so the ledger never records a body that was not returned.
   */
  commit?: (() => boolean) | undefined;
  /**
   * Called with the answer right before the store write that commits it (stashes and the
   * ledger's new head): the answer stands once that write is acknowledged; if the write fails,
   * the compaction goes on to another answer (one-way, or lossless reformats). A worker thread
   * sends it ahead, so that the event-loop thread, which makes the write, answers as soon as
   * its store acknowledges it rather than after two more messages between the threads.
   */
  ahead?: ((answer: CompactResult) => void) | undefined;
  /**
   * The caller knows the request is the agent summarising its own history (a header such as
   * Codex's `x-codex-turn-metadata` says so); the body is recognised too (§4a "Live sessions").
   */
  agentCompaction?: boolean | undefined;
  /** The request's own model and credentials, for LLM-backed components with `source: incoming`. */
  incoming?: { model?: string; headers?: Record<string, string> } | undefined;
  /**
   * Decide the body exactly as this request would be decided now, and record nothing: no
   * stash, no ledger head, no originals sent ahead (`POST /v1/messages/count_tokens` counts what
   * the model would read without the count becoming part of the session).
   */
  dryRun?: boolean | undefined;
}

/** Why a body went back unchanged without running the pipeline. */
export type Passthrough =
  | "not_json"
  | "not_object"
  | "no_messages"
  | "ambiguous_keys"
  /** One changed output text spelled with two different sets of escapes in the same body. */
  | "ambiguous_spelling"
  /** The answer was no longer wanted when it was ready (past its deadline). */
  | "abandoned";

export interface CompactResult {
  /** The body to send: the input text itself when nothing changed. */
  readonly text: string;
  readonly changed: boolean;
  readonly provider: Provider;
  readonly session: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Markers and summary sentinels in the returned body that this service wrote. */
  readonly markers: number;
  /** Ids of the full markers in the returned body: the only ids this request may resolve. */
  readonly markerIds: readonly string[];
  /** What the request was treated as (§4a), and why. */
  readonly cache: CacheTreatment;
  /** What it expects of the server's cache, for the proxy to set against what was served. */
  readonly prediction?: CachePrediction | undefined;
  /** Already-sent outputs given back as they were returned before. */
  readonly replayed: number;
  /** Set when the request took a priced break of its warm prefix (§4a). */
  readonly pricedBreak?: PricedBreak | undefined;
  /** Set when full markers acted as off because the model cannot call the expand tool. */
  readonly markersDegraded?: NoExpandReason;
  /** The requested pipeline or preset named unknown components; the configured one ran. */
  readonly pipelineFallback: boolean;
  readonly passthrough?: Passthrough;
  readonly report?: RunReport;
}

/** A priced break (§4a): the prices it was judged by, and what it is expected to save. */
export interface PricedBreak {
  readonly pricing: PricingName;
  /**
   * The expected saving over the turns to come less the re-write now, in tokens-equivalent
   * (units of one uncached prompt token).
   */
  readonly netSaving: number;
}

export interface CompactorDeps {
  readonly config: Config;
  readonly store: Store;
  readonly registry: Registry;
  /** Milliseconds clock for the ledger's request times (tests move time by hand). */
  readonly clock?: () => number;
  /** The marker key (§6); else `store.hash_key`, else a random key of this instance. */
  readonly hashKey?: string | undefined;
}
