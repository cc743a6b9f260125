import { components } from "../../src/components/registry.js";
import type { ComponentName } from "../../src/config/schema.js";
import { markerIds } from "../../src/expand/markers.js";
import type { BodyReading, Source } from "./body-reading.js";
import type { NeededFact } from "./needed.js";
import { holds, type Reference } from "./reference.js";

/** Where a needed fact stands in the body returned for its turn. */
export type FactState = "visible" | "marker" | "lost";
export const FACT_STATES: readonly FactState[] = ["visible", "marker", "lost"];

/** What a hidden fact is put down to when no component can be named for its holder. */
export const OTHER = "other";

/** The body returned for a turn, and what stands behind it. */
export interface ReturnedTurn {
  readonly reading: BodyReading;
  /**
   * The originals behind the returned body's full markers by id, as the store gives them back
   * (each searched without its listing column); none in clean mode.
   */
  readonly originals: ReadonlyMap<string, string>;
  /**
   * The session ledger's decision for each tool output of the returned body: the components
   * whose changes it kept, in order (src/session/ledger.ts); undefined when not recorded.
   */
  readonly decisions?: readonly (readonly ComponentName[])[] | undefined;
}

export interface ClassifiedFact {
  readonly fact: NeededFact;
  readonly state: FactState;
  /** The newest source that held it: what a recovery fetches again. */
  readonly holder: Source;
  /** For a fact not visible: the component that hid its holder. */
  readonly hiddenBy?: string | undefined;
}

/**
 * Where each needed fact stands in the returned body: visible where anything the model reads
 * there holds it (any message, output or call); else behind a marker where the original of a
 * marker in that body holds it (reversible mode); else lost.
 */
export function classifyFacts(
  facts: readonly NeededFact[],
  received: BodyReading,
  returned: ReturnedTurn,
): ClassifiedFact[] {
  const { reading } = returned;
  return facts.map((fact) => {
    const holder = fact.holders.at(-1) as Source;
    const seen =
      reading.given.some((text) => holds(text, fact.reference)) ||
      reading.sources.some((source) => holds(source.searched, fact.reference));
    if (seen) return { fact, state: "visible", holder };
    const stashed = [...returned.originals.values()].some((text) => holds(text, fact.reference));
    const hiddenBy = hider(fact.reference, holder, received, returned);
    return { fact, state: stashed ? "marker" : "lost", holder, hiddenBy };
  });
}

/**
 * The component that hid a holder. An output: the offloads of its ledger decision (joined with
 * `+` when several reduced it) — but when the output carries a marker whose original lacks the
 * fact, what ran before the offload had already dropped it (a reformat: textclean's progress
 * redraws), and those components are named; with no offload, the reformats that changed it. A
 * call: `mask_calls`, the only component that may change a call's arguments (SPEC §3), when the
 * returned call differs. Outputs and calls are matched by position, so a body whose outputs were
 * merged or dropped (a summary) gives "other", as does anything the ledger does not name.
 */
function hider(
  reference: Reference,
  holder: Source,
  received: BodyReading,
  returned: ReturnedTurn,
): string {
  if (returned.reading.outputs !== received.outputs) return OTHER;
  const twin = returned.reading.sources.find(
    (source) => source.kind === holder.kind && source.output === holder.output,
  );
  if (holder.kind === "call") return twin && twin.text !== holder.text ? "mask_calls" : OTHER;
  const decision = returned.decisions?.[holder.output] ?? [];
  const firstOffload = decision.findIndex((name) => components[name]?.kind === "offload");
  if (firstOffload < 0) return decision.length > 0 ? decision.join("+") : OTHER;
  const behind = markerIds(twin?.text ?? "").flatMap((id) => returned.originals.get(id) ?? []);
  const before = decision.slice(0, firstOffload);
  if (behind.length > 0 && before.length > 0 && !behind.some((text) => holds(text, reference))) {
    return before.join("+");
  }
  return decision.filter((name) => components[name]?.kind === "offload").join("+");
}
