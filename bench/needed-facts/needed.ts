import { type Action, type ActionLine, actionValues } from "./action-references.js";
import type { BodyReading, Source } from "./body-reading.js";
import { holds, type Reference, referenceKey } from "./reference.js";

/** A reference of the next action that only a tool output or an earlier call's arguments held. */
export interface NeededFact {
  readonly reference: Reference;
  /** The sources of the turn's body (as received) that hold it, in conversation order. */
  readonly holders: readonly Source[];
}

/**
 * The needed facts of a turn (SPEC §11): each reference of the agent's next action that a tool
 * output or an earlier call of the turn's body holds, and that nothing the agent was told or
 * said itself holds (tools, system and user text, its own assistant text) — the agent could not
 * have written it without that output or call. Consecutive copied lines of one value that one
 * source holds are one fact (a passage: an edit's `old_string`), and stand for the references on
 * them; blank and token-less lines inside a passage are passed over. A line no source holds
 * counts by its paths, identifiers and numbers. Each distinct reference counts once per turn.
 */
export function neededFacts(turn: BodyReading, action: Action): NeededFact[] {
  const facts: NeededFact[] = [];
  const seen = new Set<string>();
  /** Lines of passages already counted: an edit's new text repeats its old one. */
  const copied = new Set<string>();
  const given = (reference: Reference) => turn.given.some((text) => holds(text, reference));
  const holdersOf = (reference: Reference, among: readonly Source[] = turn.sources) =>
    among.filter((source) => holds(source.searched, reference));
  const add = (reference: Reference, holders: readonly Source[]) => {
    const key = referenceKey(reference);
    if (seen.has(key)) return;
    seen.add(key);
    facts.push({ reference, holders });
  };
  const copyAt = (line: ActionLine | undefined): Reference | undefined => {
    if (line?.copy === undefined) return undefined;
    const reference: Reference = { kind: "line", text: line.copy };
    return given(reference) ? undefined : reference;
  };
  for (const lines of actionValues(action)) {
    let at = 0;
    while (at < lines.length) {
      const line = lines[at] as ActionLine;
      if (line.copy !== undefined && copied.has(line.copy)) {
        at++;
        continue;
      }
      const passage = copiedPassage(lines, at, copyAt, holdersOf, copied);
      if (passage) {
        for (const text of passage.lines) copied.add(text);
        add({ kind: "line", text: passage.lines.join("\n") }, passage.holders);
        at = passage.end;
        continue;
      }
      for (const token of line.tokens) {
        if (given(token)) continue;
        const holders = holdersOf(token);
        if (holders.length > 0) add(token, holders);
      }
      at++;
    }
  }
  return facts;
}

/**
 * The passage of copied lines that starts at `at`, with the sources that hold all of it; lines
 * without references, and lines of passages already counted, are passed over inside it.
 */
function copiedPassage(
  lines: readonly ActionLine[],
  at: number,
  copyAt: (line: ActionLine | undefined) => Reference | undefined,
  holdersOf: (reference: Reference, among?: readonly Source[]) => Source[],
  counted: ReadonlySet<string>,
): { lines: string[]; holders: Source[]; end: number } | undefined {
  const first = copyAt(lines[at]);
  if (!first) return undefined;
  let holders = holdersOf(first);
  if (holders.length === 0) return undefined;
  const copied = [first.text];
  let end = at + 1;
  for (let next = end; next < lines.length; next++) {
    const line = lines[next] as ActionLine;
    if (line.copy !== undefined && counted.has(line.copy)) continue;
    const reference = copyAt(line);
    if (!reference) {
      if (line.copy === undefined && line.tokens.length === 0) continue;
      break;
    }
    const both = holdersOf(reference, holders);
    if (both.length === 0) break;
    holders = both;
    copied.push(reference.text);
    end = next + 1;
  }
  return { lines: copied, holders, end };
}
