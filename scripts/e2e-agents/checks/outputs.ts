import type { OutputString, RequestView } from "../conversation.js";

/**
 * What the service made of each tool output string it forwarded: unchanged, reduced with a
 * `<<cg:HASH>>` marker, reduced without one (an omission note of the service's components but no
 * marker: nothing to expand), or changed without an omission note (a lossless repack).
 */

export type OutputFate = "unchanged" | "marked" | "unmarked" | "repacked";

const MARKER = /<<cg:([A-Za-z0-9_-]{1,64})>>/g;

/** The omission notes the service's offloading components write where they dropped something. */
const OMISSION_NOTES = [
  /… \(\d+ (?:more )?lines omitted/,
  /… \d+ more /,
  /… \(\d+ [^)]*\)/,
  /\[older tool output masked\]/,
  /\[identical to an earlier tool output\]/,
  /\[superseded by a later run\]/,
  /\.\.\.\[cut\]\.\.\./,
  /items shown\]/,
  /lines sent earlier\]/,
];

export function markerIdsIn(text: string): string[] {
  return [...text.matchAll(MARKER)].map((match) => match[1] ?? "");
}

export function fateOf(sent: string, forwarded: string): OutputFate {
  if (sent === forwarded) return "unchanged";
  const added = markerIdsIn(forwarded).filter((id) => !sent.includes(id));
  if (added.length > 0) return "marked";
  if (OMISSION_NOTES.some((note) => note.test(forwarded) && !note.test(sent))) return "unmarked";
  return "repacked";
}

export interface OutputVerdict {
  readonly output: OutputString;
  readonly forwarded: string;
  readonly fate: OutputFate;
}

const keyOf = (output: OutputString) => `${output.callId}\u0000${output.part}`;

/** Each output string of the client's request with what was forwarded in its place. */
export function outputFates(client: RequestView, forwarded: RequestView): OutputVerdict[] {
  const sent = new Map(forwarded.outputs.map((output) => [keyOf(output), output.text]));
  return client.outputs.map((output) => {
    const text = sent.get(keyOf(output)) ?? output.text;
    return { output, forwarded: text, fate: fateOf(output.text, text) };
  });
}

/** The client's output string that a forwarded marker stands for, when one does. */
export function originalBehind(
  markerId: string,
  client: RequestView,
  forwarded: RequestView,
): OutputString | undefined {
  const holder = forwarded.outputs.find((output) => output.text.includes(`<<cg:${markerId}>>`));
  if (holder === undefined) return undefined;
  return client.outputs.find(
    (output) => output.callId === holder.callId && output.part === holder.part,
  );
}
