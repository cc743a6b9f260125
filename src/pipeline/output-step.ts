import type { ComponentName, Config, MarkerMode } from "../config/schema.js";
import type { Bound } from "./bound.js";
import { guardChanges, guardOf } from "./guards.js";
import { reduceOutput, reduceText } from "./reduce-output.js";
import type { ComponentReport } from "./report.js";
import type { PipelineDeps } from "./run.js";
import type { SlotLane } from "./slot-state.js";
import type { Change, Component, ComponentContext } from "./types.js";

/** A component that changes tool outputs one by one (output- or request-scoped). */
export type OutputsComponent = Exclude<Component, { scope: "messages" }>;

/**
 * One component's new decisions on the slots of its lane (§4): the changes it proposes for the
 * slots it may change, a pointer kept only while the slot it points to is readable (§5
 * Fidelity), the per-change guards, and each kept change applied to `lane`. Throws Revert when a
 * guard reverts the whole component (nothing is applied then).
 */
export async function changeOutputs(
  deps: PipelineDeps,
  lane: SlotLane,
  name: ComponentName,
  component: OutputsComponent,
  options: Config["components"][ComponentName],
  entry: ComponentReport,
  context: ComponentContext,
  pending: Map<string, string>,
  bound?: Bound,
): Promise<void> {
  const proposed = await proposeChanges(deps, component, options, entry.mode, context, pending);
  const changes = proposed.filter(
    (change) => change.refersTo === undefined || lane.states[change.refersTo]?.offloaded !== true,
  );
  const guard = guardOf(deps.tokens, lane, component.kind, entry.mode, context.mayChange, pending);
  // An offload's result the bound takes further is guarded as that composition (bound.ts),
  // after the component's other changes: a component a guard reverts changes nothing.
  const composed = new Map<number, string>();
  if (bound !== undefined && component.kind === "offload") {
    for (const { index, text, refersTo } of changes) {
      if (refersTo !== undefined) continue;
      const further = await bound.compose(index, text, entry.mode, pending);
      if (further !== undefined) composed.set(index, further);
    }
  }
  const kept = guardChanges(
    guard,
    changes.filter((change) => !composed.has(change.index)),
    entry,
  );
  const step = { name, entry, mayChange: context.mayChange, pending };
  for (const change of changes) {
    const further = composed.get(change.index);
    if (further === undefined || bound?.keep(step, change.index, change.text, further)) continue;
    kept.push(...guardChanges(guard, [change], entry));
  }
  for (const change of kept) {
    lane.apply(change.index, change.text, {
      name,
      kind: component.kind,
      mode: entry.mode,
      pending,
      entry,
    });
    if (change.refersTo !== undefined) lane.pointedTo.add(change.refersTo);
  }
  entry.changed += kept.length;
}

/** The changes a component proposes for the outputs it may change. */
async function proposeChanges(
  deps: PipelineDeps,
  component: OutputsComponent,
  options: Config["components"][ComponentName],
  mode: MarkerMode,
  context: ComponentContext,
  pending: Map<string, string>,
): Promise<Change[]> {
  const changes: Change[] = [];
  if (component.scope === "request") {
    // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
    const selections = await component.select(options as any, context);
    for (const { index, refersTo } of selections) {
      const output = context.outputs[index];
      if (!output || !context.mayChange(index)) continue;
      const text = component.reducesText
        ? await reduceText(deps, component, options, mode, context, pending, output)
        : // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
          component.reduce(output, options as any, context);
      if (text !== undefined && text !== output.text) changes.push({ index, text, refersTo });
    }
    return changes;
  }
  for (const output of context.outputs) {
    if (!context.mayChange(output.index)) continue;
    const text = await reduceOutput(deps, component, options, mode, context, pending, output);
    if (text !== undefined && text !== output.text) changes.push({ index: output.index, text });
  }
  return changes;
}
