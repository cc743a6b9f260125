import { isExcluded } from "../config/excluded-tools.js";
import type { ComponentName } from "../config/schema.js";
import { hasMoreLinesThan } from "../text/lines.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { SlotLane } from "./slot-state.js";
import type { Component } from "./types.js";

/**
 * Lines an output may have for a component that reads it line by line (`readsLines`). Such a
 * component spends about 0.1 µs a line however short the lines, so an output of millions of
 * short lines (`yes`, a counter: up to eleven million in a body at its limit) would take it
 * seconds, past the deadline, where its bytes parse in a tenth of that; beyond this many lines
 * the output is left to the bound (collapse: its first and last lines and a count, found from
 * its ends), a quarter of a second of line-by-line work on a 2-core machine.
 */
export const MAX_LINES_READ = 2 * 1024 * 1024;

/**
 * Which slots a component may take a new decision on (§4, §4a), in the lane it takes: not one
 * already sent on a warm request (it replays), not one that carries a marker, was reduced by an
 * offload, is held verbatim by this run (`held`) or was expanded by the model; for an offload,
 * not one a kept pointer refers to; not the slot of a tool excluded for it; one with at least
 * the trigger's `min_output_tokens`; and, for a component that reads lines, one of no more than
 * MAX_LINES_READ lines. Decided once per component, over the slots as they stand when it runs.
 */
export function eligibility(
  deps: PipelineDeps,
  request: RunRequest,
  held: (lane: SlotLane) => ReadonlySet<number>,
): (lane: SlotLane, name: ComponentName, component: Component) => (index: number) => boolean {
  const { config } = request;
  return (lane, name, component) => {
    const frozen = request.frozen[lane.kind];
    const holds = held(lane);
    // An expanded original is named by its content id: the text as received, or as a reformat
    // left it.
    const keptVerbatim = (text: string, received: string) =>
      request.kept.size > 0 &&
      (request.kept.has(deps.hash(received)) || request.kept.has(deps.hash(text)));
    const { trigger } = config.components[name];
    const eligible = lane.states.map(
      (state, index) =>
        frozen[index] === undefined &&
        !state.offloaded &&
        !state.carries &&
        !holds.has(index) &&
        !keptVerbatim(state.current, state.slot.text) &&
        !(component.kind === "offload" && lane.pointedTo.has(index)) &&
        !isExcluded(state.slot.call?.name, config, name) &&
        !(component.readsLines === true && hasMoreLinesThan(state.current, MAX_LINES_READ)) &&
        (trigger.min_output_tokens === 0 ||
          deps.tokens.atLeast(state.current, trigger.min_output_tokens)),
    );
    return (index) => eligible[index] === true;
  };
}
