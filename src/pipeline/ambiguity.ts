import type { Transcript } from "../wire/transcript.js";
import type { AcceptedReplacement } from "./messages-step.js";
import type { OutputState } from "./output-state.js";

/**
 * Outputs whose `rf:` record would make /rehydrate give back the wrong original. Rehydrate finds
 * a reformatted output's original by the hash of its text alone, so each such text must stand for
 * one original wherever it is read: two different outputs that clean up to the same text, or a
 * cleaned text that another string of the body (or an offloaded output's stashed text) reads
 * verbatim, are ambiguous. The later claimant, or the one whose record would mislead, is named.
 */
export function ambiguousRecords(
  transcript: Transcript,
  state: OutputState,
  replacement: AcceptedReplacement | undefined,
): Set<number> {
  const { received, current, stashedAs, reformatted } = state;
  const ambiguous = new Set<number>();
  const claims = new Map<string, number>();
  reformatted.forEach((text, index) => {
    if (text === undefined) return;
    const owner = claims.get(text);
    if (owner === undefined) claims.set(text, index);
    else if (received[owner] !== received[index]) ambiguous.add(index);
  });
  if (claims.size === 0) return ambiguous;
  const misleads = (text: string | undefined, original: string) => {
    const owner = text === undefined ? undefined : claims.get(text);
    if (owner !== undefined && received[owner] !== original) ambiguous.add(owner);
  };
  let output = 0;
  for (const item of transcript.strings) {
    const index = item.tool ? output++ : undefined;
    const replaced =
      replacement !== undefined &&
      item.messageIndex >= replacement.from &&
      item.messageIndex < replacement.to;
    if (replaced) continue;
    if (index === undefined) {
      misleads(item.text, item.text);
      continue;
    }
    const original = received[index] as string;
    misleads(current[index], original);
    misleads(stashedAs[index], original);
  }
  return ambiguous;
}
