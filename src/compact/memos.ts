import { Replacements } from "../cache/reach-back-estimate.js";
import { Redecisions } from "../cache/redecisions.js";
import { ContentClasses } from "../content/classify.js";
import { contentHasher } from "../expand/markers.js";
import { memoiseHash } from "../pipeline/hash-memo.js";
import { OutputMemo } from "../pipeline/output-memo.js";
import { ReplayTraces } from "../pipeline/replay-trace.js";
import { TokenCounter } from "../pipeline/tokens.js";
import { ChainMemo } from "../session/chain.js";
import { ReadMemo } from "./read-memo.js";
import { StashMemo } from "./stash-memo.js";

/**
 * What a compactor remembers in its own memory to make a re-sent history cheap: token counts,
 * component results, content ids, content classes, conversation chains, re-decisions, each
 * slot's replay, the estimate's replacements, each session's last request as read, the
 * originals it put to the store lately. Each is an optimisation, never a source of truth (a miss
 * recomputes the same answer, or puts the same original again), and together they share
 * `limits.memo_bytes` (a slot's replay lives as long as the read that holds the slot).
 */
export class CompactorMemos {
  readonly tokens: TokenCounter;
  readonly outputs: OutputMemo;
  readonly redecisions: Redecisions;
  readonly classes: ContentClasses;
  /** Content ids (§6), HMAC under the marker key. */
  readonly hash: (text: string) => string;
  /** Texts longer than this are more than the shared id memo keeps. */
  readonly longChars: number;
  readonly chains: ChainMemo;
  /** What replaying each slot did, held while the slot is (pipeline/replay-trace.ts). */
  readonly replays = new ReplayTraces();
  /** What the head estimate found components that reduce a text alone replace it with. */
  readonly replacements: Replacements;
  /** Each session's last request as read: a warm turn scans and reads only its new messages. */
  readonly reads: ReadMemo;
  /** What this compactor put to the store, per session, within the store's lifetime. */
  readonly stashed: StashMemo;

  /** `storeLifetimeMs`: how long the store keeps what was put (`store.ttl_seconds`). */
  constructor(memoBytes: number, hashKey: string, storeLifetimeMs: number) {
    // UTF-16 text is two bytes a character.
    const chars = memoBytes / 2;
    this.tokens = new TokenCounter(Math.floor(chars * 0.23));
    this.outputs = new OutputMemo(Math.floor(chars * 0.25));
    this.redecisions = new Redecisions(Math.floor(chars * 0.02));
    this.classes = new ContentClasses(Math.floor(chars * 0.05));
    this.hash = memoiseHash(contentHasher(hashKey), Math.floor(chars * 0.15));
    this.longChars = Math.floor((chars * 0.15) / 2);
    this.chains = new ChainMemo(Math.floor(chars * 0.14));
    this.replacements = new Replacements(Math.floor(chars * 0.01));
    this.reads = new ReadMemo(Math.floor(chars * 0.12));
    this.stashed = new StashMemo(Math.floor(chars * 0.03), storeLifetimeMs);
  }
}
