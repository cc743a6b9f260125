import { maskSelection } from "../components/mask/selection.js";
import { isExcluded } from "../config/excluded-tools.js";
import type { ComponentName, Config } from "../config/schema.js";
import type { Registry } from "../pipeline/run.js";
import { EXACT_CHARS, type TokenCounter } from "../pipeline/tokens.js";
import type { Decision } from "../session/ledger.js";
import type { Transcript } from "../wire/transcript.js";
import type { SlotKind } from "../wire/types.js";
import type { HeadEstimate } from "./break-decision.js";
import { type Clearance, type Replacements, reachBackClearance } from "./reach-back-estimate.js";

/** Tokens a mask placeholder (peek, marker, hint) is taken to cost. */
export const MASK_PLACEHOLDER_TOKENS = 40;

/**
 * What a warm request was decided as: each slot's text (by kind) and each output's decision, and
 * the body's size.
 */
export interface WarmResult {
  readonly texts: Readonly<Record<SlotKind, readonly string[]>>;
  readonly decisions: Readonly<Record<SlotKind, readonly Decision[]>>;
  /** Message tokens of the returned body, and its length in characters. */
  readonly tokens: number;
  readonly length: number;
}

/**
 * The most any re-decision of a warm request could clear, from what it already knows: the tokens
 * as received of every slot no component that reaches back has cleared yet (an offload returns
 * a slot no longer than it came; one already masked can only be given back). Below
 * MIN_CLEARED_SHARE of the request no priced break is possible, so the estimate need not run.
 */
export function clearableAtMost(
  slotTokens: Readonly<Record<SlotKind, readonly number[]>>,
  decisions: Readonly<Record<SlotKind, readonly Decision[]>>,
): number {
  let most = 0;
  for (const kind of ["output", "call"] as const) {
    const cleared = kind === "output" ? "mask" : "mask_calls";
    for (const [index, tokens] of slotTokens[kind].entries()) {
      if (!decisions[kind][index]?.includes(cleared)) most += tokens;
    }
  }
  return most;
}

/**
 * What a character of the body costs the model in tokens, from its content strings and the
 * agent's calls as received: their tokens over the characters of their JSON literals. Applied to a stretch of the body it
 * counts what the model reads there, the agent's tool calls included (they are read and cached
 * like the rest, though no component changes them); the JSON between messages is small beside
 * them.
 */
export function tokensPerChar(transcript: Transcript, tokens: number): number {
  let chars = 0;
  for (const string of transcript.strings) chars += string.span.end - string.span.start;
  // The agent's calls are counted with the rest (compact/parse.ts).
  for (const call of transcript.slots.call) chars += call.span.end - call.span.start;
  return chars === 0 ? 0 : tokens / chars;
}

/** What estimateHead reads of the request. */
export interface EstimateRequest {
  readonly transcript: Transcript;
  readonly names: readonly ComponentName[];
  readonly config: Config;
  readonly registry: Registry;
  readonly tokens: TokenCounter;
  /** Tokens of each output as received (TokenCounter.estimate), parallel to its outputs. */
  readonly received: readonly number[];
  /** Tokens a character of the body costs (tokensPerChar). */
  readonly perChar: number;
  /** Replacements found before for texts a component reduces alone (reach-back-estimate.ts). */
  readonly replacements?: Replacements | undefined;
}

/**
 * What re-deciding the head of a warm request would change, estimated from the warm result
 * alone (no second run): what each component of the pipeline that reaches back would clear —
 * mask (maskClearance), and the others by their own selection and replacements
 * (reach-back-estimate.ts: mask_calls, failed_run) — gives X; S is what the returned body holds
 * from the first slot any of them would change on, its characters at `perChar` tokens each.
 */
export function estimateHead(request: EstimateRequest, warm: WarmResult): HeadEstimate {
  const { transcript, names, registry, perChar } = request;
  const none = { tokens: warm.tokens, cleared: 0, suffix: 0 };
  const clearances: Clearance[] = [];
  for (const name of names) {
    if (name === "mask") {
      if (registry.mask !== undefined) clearances.push(maskClearance(request, warm));
    } else clearances.push(reachBackClearance(name, request, warm));
  }
  let cleared = 0;
  let start: number | undefined;
  for (const clearance of clearances) {
    if (clearance.first === undefined) continue;
    cleared += clearance.cleared;
    const { kind, index } = clearance.first;
    const offset = warmOffset(transcript, warm.texts, transcript.slots[kind][index]?.span.start);
    start = start === undefined ? offset : Math.min(start, offset);
  }
  if (start === undefined || warm.length === 0) return none;
  const suffix = Math.max(cleared, Math.round(Math.max(0, warm.length - start) * perChar));
  return { tokens: warm.tokens, cleared, suffix };
}

/**
 * What mask would clear on a re-decision: mask's own rule (mask/selection.ts) over the outputs
 * it could take (at least `min_tokens`, not offloaded by a component that runs before it, not
 * the copy a duplicate points to, not excluded): what it would newly mask less a placeholder
 * each, less what it masked before and would now give back because the agent works with it
 * again. An output returned as received is counted as the request counted it (`received`); one
 * returned changed, from the counter's memo, which the run has already filled for these texts.
 */
function maskClearance(request: EstimateRequest, warm: WarmResult): Clearance {
  const { transcript, names, config, registry, tokens, received } = request;
  const options = config.components.mask;
  // Offloads that run before mask take their outputs again on a re-decision; mask takes one a
  // later offload (cmdfilter, collapse) reduced, from before that offload ran, and decides again
  // on the ones it masked itself.
  const maskAt = names.indexOf("mask");
  const offloadsFirst = (name: ComponentName) =>
    registry[name]?.kind === "offload" && names.indexOf(name) < maskAt;
  const decision = (index: number) => warm.decisions.output[index] ?? [];
  const readable = (index: number) => !decision(index).some(offloadsFirst);
  const masked = (index: number) => decision(index).includes("mask");
  // The copy a duplicate points to stays readable (dedup, §5 Fidelity): mask leaves it.
  const pointedTo = new Set<string>();
  for (const output of transcript.outputs) {
    if (decision(output.index).includes("dedup")) pointedTo.add(output.text);
  }
  const least = Math.max(options.min_tokens, MASK_PLACEHOLDER_TOKENS + 1);
  const sizes = new Map<number, number | undefined>();
  /** Tokens of output `index` as a re-decision would find it; undefined when under `least`. */
  const size = (index: number): number | undefined => {
    if (sizes.has(index)) return sizes.get(index);
    const output = transcript.outputs[index];
    let found: number | undefined;
    if (output && readable(index) && !pointedTo.has(output.text)) {
      const text = masked(index) ? output.text : (warm.texts.output[index] ?? output.text);
      // Up to EXACT_CHARS the received count is exact, and at least `least` exactly when
      // TokenCounter.atLeast says so.
      const known =
        text === output.text && text.length <= EXACT_CHARS ? received[index] : undefined;
      const large = known === undefined ? tokens.atLeast(text, least) : known >= least;
      if (large && !isExcluded(output.call?.name, config, "mask")) {
        found = known ?? tokens.estimate(text);
      }
    }
    sizes.set(index, found);
    return found;
  };
  const taken = new Set(
    maskSelection({
      outputs: transcript.outputs,
      agentText: transcript.agentText,
      keepRecent: options.keep_recent,
      workingSetTokens: options.working_set_tokens,
      mayTake: (index) => size(index) !== undefined,
      readable,
      tokensWithin: (index, limit) => {
        const found = size(index);
        return found !== undefined && found <= limit ? found : undefined;
      },
    }),
  );
  let cleared = 0;
  let first: number | undefined;
  for (const output of transcript.outputs) {
    const found = size(output.index);
    if (found === undefined || taken.has(output.index) === masked(output.index)) continue;
    cleared += (taken.has(output.index) ? 1 : -1) * (found - MASK_PLACEHOLDER_TOKENS);
    first ??= output.index;
  }
  return first === undefined
    ? { cleared: 0 }
    : { cleared, first: { kind: "output", index: first } };
}

/**
 * Where the received body's offset `start` lies in the warm body: less what the slots before it
 * were returned shorter by (only slots change: a changed one is written back as a JSON string
 * literal, or as JSON text itself).
 */
function warmOffset(
  transcript: Transcript,
  texts: Readonly<Record<SlotKind, readonly string[]>>,
  start = 0,
): number {
  let offset = start;
  for (const kind of ["output", "call"] as const) {
    for (const slot of transcript.slots[kind]) {
      if (slot.span.start >= start) break;
      const text = texts[kind][slot.index];
      if (text === undefined || text === slot.text) continue;
      const written = slot.literal === "string" ? JSON.stringify(text).length : text.length;
      offset -= slot.span.end - slot.span.start - written;
    }
  }
  return offset;
}
