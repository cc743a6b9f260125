import type { CacheTreatment } from "../cache/policy.js";
import type { Pricing } from "../cache/pricing.js";
import type { ComponentName, Config } from "../config/schema.js";
import type { expandAbility, NoExpandReason } from "../expand/inject.js";
import type { Registry, RunResult } from "../pipeline/run.js";
import type { TokenCounter } from "../pipeline/tokens.js";
import type { Decision, Head, SessionLedger } from "../session/ledger.js";
import type { PendingStash } from "../session/records.js";
import type { Store } from "../store/types.js";
import type { Edit } from "../wire/edit.js";
import type { BodyScan } from "../wire/json-scan.js";
import type { WireShape } from "../wire/shape.js";
import type { ConversationRead, Transcript } from "../wire/transcript.js";
import type { SlotKind } from "../wire/types.js";
import type { CompactorMemos } from "./memos.js";
import type { CompactOptions, PricedBreak } from "./options.js";
import type { Recalled } from "./read-memo.js";

/**
 * The records one request passes through on its way (compactor.ts): parse → history → treat →
 * decide → head decision → commit. Each step takes the turn as far as it has come and returns
 * the next record.
 */

/** What every step of a compaction may use: configuration, the store, components, memos. */
export interface CompactContext {
  readonly config: Config;
  readonly store: Store;
  readonly registry: Registry;
  readonly memos: CompactorMemos;
  /** Milliseconds clock for the ledger's request times. */
  readonly clock: () => number;
}

/** What one parsed request is, before any component runs. */
export interface ParsedRequest {
  readonly text: string;
  readonly body: Record<string, unknown>;
  /** The conversation array (`messages`, or a Responses body's `input`). */
  readonly messages: readonly unknown[];
  readonly scan: BodyScan;
  /** The conversation as read: the transcript and what its shape's reader found. */
  readonly read: ConversationRead;
  /** The key its read is remembered under (compact/read-memo.ts), when its session is told. */
  readonly readKey: string | undefined;
  /** The session's last request, as far as this one re-sends its messages byte for byte. */
  readonly recalled: Recalled | undefined;
  readonly transcript: Transcript;
  readonly shape: WireShape;
  readonly session: string;
  readonly names: readonly ComponentName[];
  readonly pipelineFallback: boolean;
  readonly tokensBefore: number;
  /** Tokens of each slot as received (TokenCounter.estimate), by kind, parallel to the slots. */
  readonly slotTokens: Readonly<Record<SlotKind, readonly number[]>>;
  /** Content ids for this request: the shared memo's, and long texts' remembered for it. */
  readonly hash: (text: string) => string;
  /** Token counts for this request: the shared memo's, and what it received held for it. */
  readonly tokens: TokenCounter;
  readonly options: CompactOptions;
}

/** The session's history as far as this request shares it (§4a). */
export interface History {
  readonly ledger: SessionLedger;
  /** What the prompt holds before its messages (session/root.ts): the chain's root. */
  readonly root: string;
  /** The digest of each received message (session/chain.ts). */
  readonly digests: readonly string[];
  readonly chain: readonly string[];
  /** The head this request stands on (session/divergence.ts), when it describes its messages. */
  readonly head: Head | undefined;
  /** The recorded decision of each slot of the messages given back as they were returned. */
  readonly frozen: FrozenSlots;
  /** Messages from the first given back as they were returned: the head's, or fewer. */
  readonly through: number;
  /** The request left its conversation at message `through`, an already-sent one. */
  readonly diverged: boolean;
  /** No earlier assistant turn: a session's first request (§4a "Live sessions"). */
  readonly first: boolean;
  /** The agent summarising its own history (session/agent-compaction.ts). */
  readonly agentCompaction: boolean;
  readonly now: number;
}

/** Recorded decisions by slot kind, parallel to the transcript's slots (§4a). */
export type FrozenSlots = Readonly<Record<SlotKind, readonly Decision[]>>;

/** Nothing given back as it was returned: every slot decided anew. */
export const NOTHING_FROZEN: FrozenSlots = Object.freeze({ output: [], call: [] });

/** A request read and placed in its session's history, and what it is treated as. */
export interface Turn {
  readonly request: ParsedRequest;
  readonly history: History;
  readonly treatment: CacheTreatment;
}

/** A decided body written back: its text and what was edited where. */
export interface Written {
  readonly text: string;
  readonly tokensAfter: number;
  /** Spelling records /rehydrate needs to restore escapes as the client wrote them. */
  readonly spellings: PendingStash[];
  readonly summarized: boolean;
  /** The accepted summary: the messages it replaced and the element that stands for them. */
  readonly summary:
    | { readonly from: number; readonly to: number; readonly raw: string }
    | undefined;
  /** The output edits of each received message, by message index. */
  readonly messageEdits: ReadonlyMap<number, readonly Edit[]>;
}

/** A request decided under one treatment, its body written back. */
export interface Decided extends Written {
  readonly run: RunResult;
  readonly ability: ReturnType<typeof expandAbility>;
  readonly degraded: NoExpandReason | undefined;
}

/** What the head decision settled on: the treatment, its body, and how it is priced. */
export interface Outcome {
  readonly treatment: CacheTreatment;
  readonly decided: Decided;
  readonly pricing: Pricing;
  /** Returned tokens of the previous request this one still starts with, when warm. */
  readonly kept: number;
  /** Set when the re-decision is a priced break. */
  readonly pricedBreak?: PricedBreak;
}
