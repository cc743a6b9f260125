import { isExcluded } from "../config/excluded-tools.js";
import type { ComponentName, MarkerMode } from "../config/schema.js";
import { markerFor, markerIds } from "../expand/markers.js";
import type { ToolOutput } from "../wire/types.js";
import { componentContext } from "./context.js";
import { guardChanges, guardOf } from "./guards.js";
import { reduceOutput } from "./reduce-output.js";
import type { ComponentReport } from "./report.js";
import { newEntry } from "./report-entries.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { SlotLane } from "./slot-state.js";
import type { Component, OutputComponent } from "./types.js";

/**
 * The component that bounds an output's size (collapse, `bounds: true`) as one run composes it
 * onto another offload's result (§4, §10): an output an earlier offload reduced is no longer open
 * to new decisions, yet a multi-megabyte build log with its repeats dropped can still be a
 * million tokens, which no model accepts. The composition is one change under the earlier
 * offload's marker, so the output carries one marker that resolves to its whole original, and it
 * is guarded once against the text before both: the intermediate text is never returned, so it
 * is never counted.
 */
export class Bound {
  private constructor(
    private readonly deps: PipelineDeps,
    private readonly request: RunRequest,
    private readonly lane: SlotLane,
    readonly name: ComponentName,
    private readonly component: OutputComponent<ComponentName>,
    /** Its report entry, which its own pipeline position takes over. */
    private readonly entry: () => ComponentReport,
  ) {}

  /** Component `name` as the bound of this run, when it is an output-scoped one that bounds. */
  static of(
    deps: PipelineDeps,
    request: RunRequest,
    lane: SlotLane,
    name: ComponentName,
    entry: () => ComponentReport,
  ): Bound | undefined {
    const component = deps.registry[name] as Component | undefined;
    if (!component?.bounds || component.scope !== "output") return undefined;
    return new Bound(deps, request, lane, name, component, entry);
  }

  /**
   * Output `index` as the bound reduces it after an earlier offload left it as `reduced`, under
   * that offload's marker (what it asked to stash is in `pending`); undefined when the bound
   * leaves it as it is, is not for this output (its tool is excluded, it is under the trigger),
   * or the earlier offload did not write exactly one marker in full mode.
   */
  async compose(
    index: number,
    reduced: string,
    mode: MarkerMode,
    pending: ReadonlyMap<string, string>,
  ): Promise<string | undefined> {
    const { deps, request, name } = this;
    const received: ToolOutput = this.lane.at(index).slot;
    const earlier = [...new Set(markerIds(reduced))].filter((id) => pending.has(id));
    if (mode === "full" && earlier.length !== 1) return undefined;
    if (isExcluded(received.call?.name, request.config, name)) return undefined;
    const options = request.config.components[name];
    const minimum = options.trigger.min_output_tokens;
    if (minimum > 0 && !deps.tokens.atLeast(reduced, minimum)) return undefined;
    const own = new Map<string, string>();
    const only = (candidate: number) => candidate === index;
    const output: ToolOutput = { ...received, text: reduced };
    // Its entry is taken only for a kept composition: one the guards refuse reports nothing.
    const scratch = newEntry(name, "offload", mode);
    const context = componentContext(deps, request, this.lane, scratch, mode, only, own, [output]);
    const text = await reduceOutput(deps, this.component, options, mode, context, own, output);
    if (text === undefined || text === reduced) return undefined;
    const first = earlier[0];
    if (first === undefined) return text;
    let composed = text;
    for (const id of new Set(markerIds(text))) {
      if (own.has(id)) composed = composed.replaceAll(markerFor(id), markerFor(first));
    }
    return composed;
  }

  /**
   * Guards `composed` for output `index` as one change of `step` (an offload whose own result
   * was `reduced`) against the output as it stands: faithful, with strictly fewer tokens. When
   * kept, applies both steps to the state and returns true; false leaves the state as it was.
   */
  keep(
    step: {
      readonly name: ComponentName;
      readonly entry: ComponentReport;
      readonly mayChange: (index: number) => boolean;
      readonly pending: ReadonlyMap<string, string>;
    },
    index: number,
    reduced: string,
    composed: string,
  ): boolean {
    const { mode } = step.entry;
    // Guarded on an entry of its own: a composition the guards refuse is no drop of the bound's.
    const tried = newEntry(this.name, "offload", mode);
    const guard = guardOf(
      this.deps.tokens,
      this.lane,
      "offload",
      mode,
      step.mayChange,
      step.pending,
    );
    try {
      if (guardChanges(guard, [{ index, text: composed }], tried).length !== 1) return false;
    } catch {
      return false;
    }
    const entry = this.entry();
    entry.tokensBefore += tried.tokensBefore;
    entry.tokensAfter += tried.tokensAfter;
    const change = { kind: "offload" as const, mode, pending: step.pending };
    this.lane.apply(index, reduced, { ...change, name: step.name, entry: step.entry });
    this.lane.apply(index, composed, { ...change, name: this.name, entry });
    step.entry.changed++;
    entry.changed++;
    return true;
  }
}
