import { isExcluded } from "../config/excluded-tools.js";
import type { ComponentName } from "../config/schema.js";
import { hasMoreLinesThan } from "../text/lines.js";
import type { OutputState } from "./output-state.js";
import type { PipelineDeps, RunRequest } from "./run.js";
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
 * Which outputs a component may take a new decision on (§4, §4a): not one already sent on a warm
 * request (it replays), not one that carries a marker, was reduced by an offload, is held
 * verbatim by this run or was expanded by the model; for an offload, not one a kept pointer
 * refers to; not the output of a tool excluded for it; one with at least the trigger's
 * `min_output_tokens`; and, for a component that reads lines, one of no more than
 * MAX_LINES_READ lines. Decided once per component, over the outputs as they stand when it runs.
 */
export function eligibility(
  deps: PipelineDeps,
  request: RunRequest,
  state: OutputState,
  held: ReadonlySet<number>,
): (name: ComponentName, component: Component) => (index: number) => boolean {
  const { transcript, config } = request;
  const frozen = (index: number) => request.frozen[index] !== undefined;
  // An expanded original is named by its content id: the text as received, or as a reformat left it.
  const keptVerbatim = (index: number) =>
    request.kept.size > 0 &&
    (request.kept.has(deps.hash(state.received[index] as string)) ||
      request.kept.has(deps.hash(state.current[index] as string)));
  const isProtected = (index: number) =>
    state.offloaded[index] || state.carries[index] || held.has(index) || keptVerbatim(index);
  return (name, component) => {
    const { trigger } = config.components[name];
    const eligible = state.current.map(
      (text, index) =>
        !frozen(index) &&
        !isProtected(index) &&
        !(component.kind === "offload" && state.pointedTo.has(index)) &&
        !isExcluded(transcript.outputs[index]?.call?.name, config, name) &&
        !(component.readsLines === true && hasMoreLinesThan(text, MAX_LINES_READ)) &&
        (trigger.min_output_tokens === 0 || deps.tokens.atLeast(text, trigger.min_output_tokens)),
    );
    return (index) => eligible[index] === true;
  };
}
