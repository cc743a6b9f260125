import type { MarkerMode } from "../config/schema.js";
import { EXPAND_HINT, markerFor, SENTINEL } from "../expand/markers.js";
import type { ToolOutput } from "../wire/types.js";
import type { ComponentReport } from "./report.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { SlotLane } from "./slot-state.js";
import type { ComponentContext } from "./types.js";

/** Every slot of `lane` as it stands. */
export function currentOutputs(lane: SlotLane): ToolOutput[] {
  return lane.states.map((_, index) => currentOutput(lane, index));
}

/** Slot `index` of `lane` as it stands. */
export function currentOutput(lane: SlotLane, index: number): ToolOutput {
  const { slot, current } = lane.at(index);
  return slot.text === current ? slot : { ...slot, text: current };
}

/**
 * What the pipeline lends one component for one run: every slot of the lane it takes as it
 * stands (`outputs`, when the caller keeps them current itself), which of them it may change,
 * and a marker function that records what must be stashed under each id it hands out (into
 * `pending`, which the pipeline reads when it keeps a change).
 */
export function componentContext(
  deps: PipelineDeps,
  request: RunRequest,
  lane: SlotLane,
  entry: ComponentReport,
  mode: MarkerMode,
  mayChange: (index: number) => boolean,
  pending: Map<string, string>,
  outputs: ToolOutput[] = currentOutputs(lane),
): ComponentContext {
  const { transcript } = request;
  return {
    provider: transcript.provider,
    outputs,
    mayChange,
    wasOffloaded: (index) => lane.states[index]?.offloaded === true,
    redecide: request.redecide,
    messageCount: transcript.messageCount,
    goal: transcript.goal,
    agentText: transcript.agentText,
    mode,
    hint: mode === "full" ? EXPAND_HINT : "",
    marker(original) {
      if (mode === "off") return "";
      if (mode === "summary") return SENTINEL;
      const id = deps.hash(original);
      pending.set(id, original);
      return markerFor(id);
    },
    tokens: (text) => deps.tokens.count(text),
    atLeastTokens: (text, limit) => deps.tokens.atLeast(text, limit),
    signal: request.signal,
    ...(request.incoming ? { incoming: request.incoming } : {}),
    reportModelCall(call) {
      entry.modelCalls ??= [];
      entry.modelCalls.push(call);
    },
  };
}
