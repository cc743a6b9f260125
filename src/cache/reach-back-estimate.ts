import { isExcluded } from "../config/excluded-tools.js";
import type { ComponentName, Config } from "../config/schema.js";
import { EXPAND_HINT, markerFor } from "../expand/markers.js";
import type { Registry } from "../pipeline/run.js";
import { SizedMemo } from "../pipeline/sized-memo.js";
import type { TokenCounter } from "../pipeline/tokens.js";
import type { ComponentContext, RequestComponent } from "../pipeline/types.js";
import type { Decision } from "../session/ledger.js";
import type { Transcript } from "../wire/transcript.js";
import type { SlotKind, ToolOutput } from "../wire/types.js";

/** A marker as long as any the compactor writes: what a reduction's marker costs is counted. */
const ESTIMATE_MARKER = markerFor("0".repeat(16));

/** What a component's reduce gave for a text it leaves as it is. */
const NONE = "\u0000";

/**
 * The replacements the estimate found for the texts of components that reduce a text alone
 * (`reducesText`: mask_calls, failed_run), by component and text: a warm turn's estimate asks
 * again about every slot of its history, and each is the same as the turn before. An
 * optimisation: a miss runs the component's reduce, which gives the same text.
 */
export class Replacements {
  readonly #byComponent = new Map<ComponentName, SizedMemo<string>>();

  /** `maxChars`: characters of texts and replacements held, shared by the components. */
  constructor(private readonly maxChars: number) {}

  of(name: ComponentName): SizedMemo<string> {
    let memo = this.#byComponent.get(name);
    if (memo === undefined) {
      memo = new SizedMemo<string>(
        Math.floor(this.maxChars / 2),
        (key, value) => key.length + value.length + 16,
      );
      this.#byComponent.set(name, memo);
    }
    return memo;
  }
}

/** What one component would clear on a re-decision of the head: tokens, and where it starts. */
export interface Clearance {
  readonly cleared: number;
  /** The slot it would change first (its kind and index), when it changes any. */
  readonly first?: { readonly kind: SlotKind; readonly index: number };
}

/**
 * What a request-scoped component that reaches back (failed_run, mask_calls — mask has its own
 * estimate, head-estimate.ts) would clear on a re-decision of a warm request's head, from the
 * warm result alone (§4a "Priced breaks"): its own selection over the slots of its kind as they
 * were returned — those an offload already reduced left out — and, for each slot it picks, the
 * tokens its replacement saves. The selection and the replacement are the component's own, so
 * the estimate is what it would do.
 */
export function reachBackClearance(
  name: ComponentName,
  request: {
    readonly transcript: Transcript;
    readonly config: Config;
    readonly registry: Registry;
    readonly tokens: TokenCounter;
    /** What the components that reduce a text alone replaced it with before, by text. */
    readonly replacements?: Replacements | undefined;
  },
  warm: {
    readonly texts: Readonly<Record<SlotKind, readonly string[]>>;
    readonly decisions: Readonly<Record<SlotKind, readonly Decision[]>>;
  },
): Clearance {
  const { transcript, config, registry, tokens } = request;
  const component = registry[name];
  if (!component?.reachesBack || component.scope !== "request") return { cleared: 0 };
  const kind = component.slots ?? "output";
  const offloaded = (index: number) =>
    (warm.decisions[kind][index] ?? []).some((step) => registry[step]?.kind === "offload");
  const outputs: ToolOutput[] = transcript.slots[kind].map((slot) => {
    const text = warm.texts[kind][slot.index] ?? slot.text;
    return text === slot.text ? slot : { ...slot, text };
  });
  const options = config.components[name];
  const context: ComponentContext = {
    provider: transcript.provider,
    outputs,
    mayChange: (index) =>
      !offloaded(index) && !isExcluded(outputs[index]?.call?.name, config, name),
    wasOffloaded: offloaded,
    // Asked what it would pick, not run: no component re-decides anything here.
    redecide: false,
    messageCount: transcript.messageCount,
    goal: transcript.goal,
    agentText: transcript.agentText,
    mode: "full",
    marker: () => ESTIMATE_MARKER,
    hint: EXPAND_HINT,
    tokens: (text) => tokens.estimate(text),
    atLeastTokens: (text, limit) => tokens.atLeast(text, limit),
    signal: new AbortController().signal,
  };
  const typed = component as RequestComponent<ComponentName>;
  let cleared = 0;
  let first: number | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
  const picked = typed.select(options as any, context);
  if (picked instanceof Promise) return { cleared: 0 };
  const replacements = typed.reducesText ? request.replacements?.of(name) : undefined;
  for (const { index } of picked) {
    const output = outputs[index];
    if (output === undefined || !context.mayChange(index)) continue;
    let text = replacements?.get(output.text);
    if (text === undefined) {
      // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
      text = typed.reduce(output, options as any, context) ?? NONE;
      replacements?.set(output.text, text);
    }
    if (text === NONE) continue;
    const saved = tokens.estimate(output.text) - tokens.estimate(text);
    if (saved <= 0) continue;
    cleared += saved;
    first = first === undefined ? index : Math.min(first, index);
  }
  return first === undefined ? { cleared: 0 } : { cleared, first: { kind, index: first } };
}
