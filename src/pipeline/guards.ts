import type { MarkerMode } from "../config/schema.js";
import { markerFor, markerIds, SENTINEL } from "../expand/markers.js";
import { checkFidelity } from "./fidelity.js";
import type { ComponentReport } from "./report.js";
import { Revert } from "./revert.js";
import type { SlotLane, SlotState } from "./slot-state.js";
import type { TokenCounter } from "./tokens.js";
import type { Change, ComponentKind } from "./types.js";

export interface GuardContext {
  readonly tokens: TokenCounter;
  readonly kind: ComponentKind;
  readonly mode: MarkerMode;
  /** The slots as they stand; each slot's content class (§5 Fidelity) was decided as it was read. */
  readonly states: readonly SlotState[];
  readonly mayChange: (index: number) => boolean;
  /** What the component asked to stash, by marker id. */
  readonly pending: ReadonlyMap<string, string>;
}

/** The guard context of one component's changes over the slots of `lane` as they stand. */
export function guardOf(
  tokens: TokenCounter,
  lane: SlotLane,
  kind: ComponentKind,
  mode: MarkerMode,
  mayChange: (index: number) => boolean,
  pending: ReadonlyMap<string, string>,
): GuardContext {
  return { tokens, kind, mode, states: lane.states, mayChange, pending };
}

/**
 * The per-change guards (§4): a change must touch an output the component may change; in full
 * mode an offload must carry the marker of a stashed original (however large: the store keeps
 * an original larger than one entry in pieces); an offload must keep the output
 * faithful (§5 Fidelity: never empty or notes-only, a fact-class output whole, masked or
 * collapsed head and tail — else that output stays as it was); the replacement must have
 * strictly fewer tokens than what it replaces. Throws Revert when the whole component must be reverted;
 * returns the changes that are kept, with their token totals in `entry`.
 */
export function guardChanges(
  guard: GuardContext,
  changes: readonly Change[],
  entry: ComponentReport,
): Change[] {
  const kept: Change[] = [];
  const seen = new Set<number>();
  let before = 0;
  let after = 0;
  for (const change of changes) {
    const { index, text } = change;
    if (
      !Number.isInteger(index) ||
      !guard.mayChange(index) ||
      seen.has(index) ||
      typeof text !== "string"
    ) {
      throw new Revert(
        "touched_protected_output",
        `change to output ${String(index)} is not allowed`,
      );
    }
    seen.add(index);
    if (guard.kind === "offload" && guard.mode === "full") {
      const stashed = markerIds(text).filter((id) => guard.pending.has(id));
      if (stashed.length === 0) {
        throw new Revert("no_cache_key", `output ${index} was reduced without a stashed marker`);
      }
    }
    if (guard.kind === "offload") {
      const markers = [...markerIds(text).map(markerFor), SENTINEL];
      const state = guard.states[index] as SlotState;
      if (checkFidelity(state.current, text, state.slot.contentClass, markers) !== undefined) {
        entry.unfaithful = (entry.unfaithful ?? 0) + 1;
        entry.dropped++;
        continue;
      }
    }
    const counted = guard.tokens.compare((guard.states[index] as SlotState).current, text);
    if (!counted.fewer) {
      entry.dropped++;
      continue;
    }
    const { before: tokensBefore, after: tokensAfter } = counted;
    before += tokensBefore;
    after += tokensAfter;
    kept.push(change);
  }
  if (after > before) throw new Revert("grew", `tokens ${before} → ${after}`);
  entry.tokensBefore += before;
  entry.tokensAfter += after;
  return kept;
}
