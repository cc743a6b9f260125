import type { MarkerMode } from "../config/schema.js";
import { carriesMarker, markerIds } from "../expand/markers.js";
import type { PendingStash } from "../session/records.js";
import type { Transcript } from "../wire/transcript.js";
import type { ComponentReport } from "./report.js";
import { Revert } from "./revert.js";
import type { TokenCounter } from "./tokens.js";
import type { MessagesReplacement, MessagesView } from "./types.js";

/** A message replacement that passed every guard, with what it saves. */
export interface AcceptedReplacement extends MessagesReplacement {
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

export interface MessagesGuard {
  readonly transcript: Transcript;
  readonly view: MessagesView;
  readonly mode: MarkerMode;
  readonly tokens: TokenCounter;
  readonly hash: (text: string) => string;
  /** Ids the component asked to stash (its marker calls). */
  readonly pending: ReadonlyMap<string, string>;
  /** True for a tool output that must stay verbatim (it was expanded). */
  readonly keepsVerbatim: (outputIndex: number) => boolean;
}

/**
 * The guards of a message replacement (§4), the message-level twin of the per-output ones: a
 * valid range that holds no marker and no expanded output; in full mode a marker whose stash is
 * exactly the raw JSON of the replaced messages; strictly fewer tokens than the content it
 * replaces. Throws Revert, or returns undefined when the replacement does not save tokens.
 * On success, `stashes` holds the raw span under the marker id and a `msg` record (hash of the
 * replacement text → marker id) by which /rehydrate finds the message to restore.
 */
export function guardReplacement(
  guard: MessagesGuard,
  replacement: MessagesReplacement,
  entry: ComponentReport,
): { accepted: AcceptedReplacement; stashes: [PendingStash["key"], string][] } | undefined {
  const { transcript, view, mode, tokens, pending } = guard;
  const { from, to, message, role } = replacement;
  const count = view.messages.length;
  if (
    !Number.isInteger(from) ||
    !Number.isInteger(to) ||
    from < 0 ||
    to > count ||
    from >= to ||
    typeof message !== "string" ||
    (role !== "user" && role !== "assistant")
  ) {
    throw new Revert("touched_protected_output", `invalid replacement of messages ${from}..${to}`);
  }
  const inside = (messageIndex: number) => messageIndex >= from && messageIndex < to;
  let before = 0;
  for (const item of transcript.strings) {
    if (!inside(item.messageIndex)) continue;
    if (carriesMarker(item.text)) {
      throw new Revert("touched_protected_output", `message ${item.messageIndex} carries a marker`);
    }
    before += tokens.count(item.text);
  }
  for (const output of transcript.outputs) {
    if (inside(output.messageIndex) && guard.keepsVerbatim(output.index)) {
      throw new Revert("touched_protected_output", `output ${output.index} was expanded`);
    }
  }
  const stashes: [PendingStash["key"], string][] = [];
  if (mode === "full") {
    const raw = view.raw(from, to);
    const id = markerIds(message).find((candidate) => pending.get(candidate) === raw);
    if (id === undefined) {
      throw new Revert("no_cache_key", `messages ${from}..${to} were replaced without a marker`);
    }
    stashes.push([id, raw], [{ kind: "msg", textId: guard.hash(message) }, id]);
    entry.keys.push(id);
  }
  const after = tokens.count(message);
  if (after >= before) {
    entry.dropped++;
    entry.keys = [];
    return undefined;
  }
  entry.tokensBefore = before;
  entry.tokensAfter = after;
  entry.changed = 1;
  return {
    accepted: { from, to, role, message, tokensBefore: before, tokensAfter: after },
    stashes,
  };
}
