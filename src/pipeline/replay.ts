import type { ComponentName } from "../config/schema.js";
import type { Decision } from "../session/ledger.js";
import type { ToolOutput } from "../wire/types.js";
import { Bound } from "./bound.js";
import { componentContext, currentOutput, currentOutputs } from "./context.js";
import { guardChanges, guardOf } from "./guards.js";
import { reduceOutput, reduceText } from "./reduce-output.js";
import { type ReplayTraces, repeatReplay, type SlotReplay } from "./replay-trace.js";
import type { ReportEntries } from "./report-entries.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { SlotLane } from "./slot-state.js";
import type { Change, Component } from "./types.js";

/**
 * Gives the already-sent slots of one lane back as they were returned (§4a): every slot
 * `request.frozen` names (none on a cold request; those before the message it diverged at on a
 * diverged one). Each recorded component runs again on that slot alone, in the recorded order,
 * under the same guards: the one path every change takes (SlotLane.apply). A step that no
 * longer reproduces a change (its component or options went away) ends that slot's replay.
 * Given `traces`, a slot whose replay would go exactly as it went is taken as recorded
 * (replay-trace.ts), and each slot replayed is recorded. Returns how many slots were replayed.
 */
export async function replay(
  deps: PipelineDeps,
  request: RunRequest,
  lane: SlotLane,
  reportEntries: ReportEntries,
  replayable: (index: number) => boolean,
  traces?: ReplayTraces,
): Promise<number> {
  let replayed = 0;
  // One view of the slots for every replay, brought up to date as each change is applied.
  const outputs = currentOutputs(lane);
  // The replay of the lane's frozen slot before, as it went, while every one before went as
  // recorded (replay-trace.ts).
  let previous: SlotReplay | undefined;
  let traced = traces !== undefined && request.oneWay === undefined;
  for (const [index, decision] of request.frozen[lane.kind].entries()) {
    if (decision === undefined || !replayable(index)) continue;
    replayed++;
    const slot = lane.at(index).slot;
    const known = traced ? traces?.find(slot, decision, previous, request) : undefined;
    if (known !== undefined) {
      repeatReplay(known, lane, index, reportEntries, outputs);
      previous = known;
      continue;
    }
    const recorder = traced ? traces?.record(lane, index, reportEntries) : undefined;
    const entries = recorder ?? reportEntries;
    try {
      await replaySlot(deps, request, lane, entries, outputs, index, decision);
    } catch (error) {
      recorder?.abandon();
      throw error;
    }
    previous = recorder?.finish(decision, previous, request.redecide);
    traced &&= previous !== undefined;
  }
  return replayed;
}

/** Replays slot `index` as `decision` says: each recorded component again, under the guards. */
async function replaySlot(
  deps: PipelineDeps,
  request: RunRequest,
  lane: SlotLane,
  entries: Pick<ReportEntries, "entryFor">,
  outputs: ToolOutput[],
  index: number,
  decision: Decision,
): Promise<void> {
  for (let step = 0; step < decision.length; step++) {
    const name = decision[step] as ComponentName;
    const component = deps.registry[name] as Component | undefined;
    if (!component || component.scope === "messages") break;
    const entry = entries.entryFor(name, component.kind, true);
    const options = request.config.components[name];
    const pending = new Map<string, string>();
    const only = (candidate: number) => candidate === index;
    const context = componentContext(
      deps,
      request,
      lane,
      entry,
      entry.mode,
      only,
      pending,
      outputs,
    );
    const output = outputs[index] as ToolOutput;
    const text =
      component.scope === "output"
        ? await reduceOutput(deps, component, options, entry.mode, context, pending, output)
        : component.reducesText
          ? await reduceText(deps, component, options, entry.mode, context, pending, output)
          : // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
            component.reduce(output, options as any, context);
    if (text === undefined || text === output.text) break;
    // An offload the bound took further in the same run is replayed as that composition.
    const next = decision[step + 1];
    const bound =
      component.kind === "offload" && next !== undefined
        ? Bound.of(deps, request, lane, next, () => entries.entryFor(next, "offload", true))
        : undefined;
    const composed = await bound?.compose(index, text, entry.mode, pending);
    const offload = { name, entry, mayChange: only, pending };
    if (composed !== undefined && bound?.keep(offload, index, text, composed)) {
      outputs[index] = currentOutput(lane, index);
      step++;
      continue;
    }
    const guard = guardOf(deps.tokens, lane, component.kind, entry.mode, only, pending);
    let kept: Change[];
    try {
      kept = guardChanges(guard, [{ index, text }], entry);
    } catch {
      break;
    }
    if (kept.length === 0) break;
    lane.apply(index, text, { name, kind: component.kind, mode: entry.mode, pending, entry });
    outputs[index] = currentOutput(lane, index);
  }
}
