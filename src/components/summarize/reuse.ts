import { LRUCache } from "lru-cache";

/** A summary made earlier, of messages[from..to) of a conversation with the same head. */
export interface PriorSummary {
  readonly to: number;
  /** Digest of the exact raw JSON of the summarized messages. */
  readonly spanKey: string;
  readonly summary: string;
}

const CONVERSATIONS = 1024;
/** Spans remembered per conversation head (the newest first). */
const SPANS_PER_HEAD = 4;

/**
 * Summaries kept in process so an agent that re-sends its transcript gets the same summary
 * bytes every turn (no new model call, provider prompt caches stay warm). Keyed by a digest of
 * the conversation's head; each entry is only reused when the digest of the raw span it covers
 * still matches, so a changed history never gets a stale summary.
 */
export class SummaryCache {
  readonly #byHead = new LRUCache<string, PriorSummary[]>({ max: CONVERSATIONS });

  /** Earlier summaries of the conversation whose head digests to `headKey`, newest first. */
  recent(headKey: string): readonly PriorSummary[] {
    return this.#byHead.get(headKey) ?? [];
  }

  remember(headKey: string, prior: PriorSummary): void {
    const others = this.recent(headKey).filter((item) => item.spanKey !== prior.spanKey);
    this.#byHead.set(headKey, [prior, ...others].slice(0, SPANS_PER_HEAD));
  }
}
