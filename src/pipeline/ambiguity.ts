import type { Transcript } from "../wire/transcript.js";
import type { AcceptedReplacement } from "./messages-step.js";
import type { SlotLane } from "./slot-state.js";

/**
 * Outputs whose `rf:` record would make /rehydrate give back the wrong original. Rehydrate finds
 * a reformatted output's original by the hash of its text alone, so each such text must stand for
 * one original wherever it is read: two different outputs that clean up to the same text, or a
 * cleaned text that another string of the body (or an offloaded output's stashed text) reads
 * verbatim, are ambiguous within one message (records are scoped to their message). The later
 * claimant, or the one whose record would mislead, is named.
 */
export function ambiguousRecords(
  transcript: Transcript,
  outputs: SlotLane,
  replacement: AcceptedReplacement | undefined,
): Set<number> {
  const received = (index: number) => outputs.at(index).slot.text;
  const ambiguous = new Set<number>();
  // Records are scoped to the message that holds them (session/records.ts), so a text claims
  // an original only within its message: outputs of different messages never collide. Claims
  // are found by text, then by message; a string whose length no claim has is not looked up.
  const claims = new Map<string, Map<number, number>>();
  const lengths = new Set<number>();
  const messageOf = (index: number) => transcript.outputs[index]?.messageIndex ?? -1;
  outputs.states.forEach(({ reformatted: text }, index) => {
    if (text === undefined) return;
    const message = messageOf(index);
    let byMessage = claims.get(text);
    if (byMessage === undefined) {
      byMessage = new Map();
      claims.set(text, byMessage);
      lengths.add(text.length);
    }
    const owner = byMessage.get(message);
    if (owner === undefined) byMessage.set(message, index);
    else if (received(owner) !== received(index)) ambiguous.add(index);
  });
  if (claims.size === 0) return ambiguous;
  const misleads = (message: number, text: string | undefined, original: string) => {
    if (text === undefined || !lengths.has(text.length)) return;
    const owner = claims.get(text)?.get(message);
    if (owner !== undefined && received(owner) !== original) ambiguous.add(owner);
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
      misleads(item.messageIndex, item.text, item.text);
      continue;
    }
    const { current, stashedAs, slot } = outputs.at(index);
    misleads(item.messageIndex, current, slot.text);
    misleads(item.messageIndex, stashedAs, slot.text);
  }
  return ambiguous;
}
