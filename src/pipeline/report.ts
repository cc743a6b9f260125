import type { ComponentName, MarkerMode } from "../config/schema.js";
import type { ComponentKind } from "./types.js";

/** Why a component's changes were thrown away (§4 guards), or why it did not run. */
export type RevertReason = "threw" | "no_cache_key" | "grew" | "touched_protected_output";
export type GateReason = "unavailable" | "min_messages" | "min_request_tokens" | "warm";

export interface ComponentReport {
  readonly name: ComponentName;
  readonly kind: ComponentKind;
  readonly mode: MarkerMode;
  /** Tokens of the outputs it changed, before and after (0/0 when it changed nothing). */
  tokensBefore: number;
  tokensAfter: number;
  durationMs: number;
  /** Outputs changed and kept. */
  changed: number;
  /** Changes dropped by a per-output guard (never-worse, fidelity, stash size). */
  dropped: number;
  /** Of those, changes that would have misrepresented an output (§5 Fidelity). */
  unfaithful?: number;
  /** Marker ids it wrote. */
  keys: string[];
  reverted?: { reason: RevertReason; detail: string };
  gated?: GateReason;
  /** Calls to a cheap model by an LLM-backed component (§5), in the order they settled. */
  modelCalls?: ModelCallReport[];
}

/** One cheap-model call: what it cost and whether its answer was used. */
export interface ModelCallReport {
  /** The model asked ("" when none is configured). */
  readonly model: string;
  /** `skipped`: no model to ask; `failed`: no answer; `rejected`: the answer did not verify. */
  readonly outcome: "accepted" | "rejected" | "failed" | "skipped";
  readonly reason?: string;
  readonly durationMs: number;
  /** Requests sent, retries included. */
  readonly attempts: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** Why the store could not keep originals: a byte bound or quota, or the store failed. */
export type OneWayReason = "capacity" | "unavailable";

/** What one pipeline run did; feeds metrics and logs, never the response body. */
export interface RunReport {
  readonly components: ComponentReport[];
  /** Set when stashing failed and every offload of the run was reverted. */
  stashFailure?: string;
  /** Outputs cut one-way with a visible note because the store could not keep their originals. */
  oneWay?: { outputs: number; reason: OneWayReason };
  /** Originals larger than one store entry, kept in pieces. */
  pieced?: number;
}
