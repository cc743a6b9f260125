import { componentContext } from "./context.js";
import { eligibility } from "./eligibility.js";
import { componentGates } from "./gating.js";
import { type AcceptedReplacement, replaceMessages } from "./messages-step.js";
import type { OutputState } from "./output-state.js";
import { changeOutputs } from "./output-step.js";
import type { ReportEntries } from "./report-entries.js";
import { Revert, recordRevert } from "./revert.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { Component, MessagesView } from "./types.js";

/**
 * The new decisions of one run (§4): each configured component in order, unless gated, over the
 * outputs it may change — a messages-scoped one through the messages step (at most one
 * replacement per run), any other through the output step. A component a guard reverts, or that
 * throws, is reverted alone and the run goes on. Returns the accepted message replacement.
 */
export async function decideNew(
  deps: PipelineDeps,
  request: RunRequest,
  state: OutputState,
  entries: ReportEntries,
  held: ReadonlySet<number>,
): Promise<AcceptedReplacement | undefined> {
  const gateOf = componentGates(deps, request);
  const eligibleFor = eligibility(deps, request, state, held);
  let replacement: AcceptedReplacement | undefined;
  let view: MessagesView | undefined;
  for (const name of request.names) {
    const component = deps.registry[name] as Component | undefined;
    const entry = entries.entryFor(name, component?.kind, false);
    const gate = gateOf(name, component);
    if (gate !== undefined || !component) {
      entry.gated = gate ?? "unavailable";
      continue;
    }
    const started = performance.now();
    const pending = new Map<string, string>();
    const mayChange = eligibleFor(name, component);
    const context = componentContext(deps, request, state, entry, entry.mode, mayChange, pending);
    const options = request.config.components[name];
    try {
      if (component.scope === "messages") {
        if (replacement) throw new Revert("touched_protected_output", "messages already replaced");
        view ??= request.messages?.();
        if (!view) {
          entry.gated = "unavailable";
          continue;
        }
        replacement = await replaceMessages(
          deps,
          request,
          state,
          component,
          context,
          view,
          entry,
          pending,
        );
      } else {
        await changeOutputs(deps, state, name, component, options, entry, context, pending);
      }
    } catch (error) {
      recordRevert(entry, error);
    }
    entry.durationMs += performance.now() - started;
  }
  return replacement;
}
