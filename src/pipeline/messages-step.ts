import type { ComponentName, MarkerMode } from "../config/schema.js";
import { carriesMarker, markerIds } from "../expand/markers.js";
import type { PendingStash } from "../session/records.js";
import type { Transcript } from "../wire/transcript.js";
import type { ComponentReport } from "./report.js";
import { Revert } from "./revert.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { SlotLane } from "./slot-state.js";
import type { TokenCounter } from "./tokens.js";
import type {
  ComponentContext,
  MessagesComponent,
  MessagesReplacement,
  MessagesView,
} from "./types.js";

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

/**
 * A messages-scoped component's step (§4): its replacement of a run of whole messages, through
 * the message guards; on a warm request only the summary the messages were sent with is accepted
 * back (§4a). An accepted replacement is applied to `outputs`: its originals stashed where the
 * span began (the summary is returned as one message there), its marker counted, and the tool
 * outputs inside the span kept as received and closed to later components.
 */
export async function replaceMessages(
  deps: PipelineDeps,
  request: RunRequest,
  outputs: SlotLane,
  component: MessagesComponent<ComponentName>,
  context: ComponentContext,
  view: MessagesView,
  entry: ComponentReport,
  pending: ReadonlyMap<string, string>,
): Promise<AcceptedReplacement | undefined> {
  const options = request.config.components[component.name];
  // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
  const proposed = await component.reduce(options as any, context, view);
  if (!proposed) return undefined;
  const recorded = request.frozenSummary;
  if (!request.redecide && (proposed.from !== recorded?.from || proposed.to !== recorded?.to)) {
    return undefined;
  }
  const guarded = guardReplacement(
    {
      transcript: request.transcript,
      view,
      mode: entry.mode,
      tokens: deps.tokens,
      hash: deps.hash,
      pending,
      keepsVerbatim: (index) =>
        request.kept.size > 0 && request.kept.has(deps.hash(outputs.at(index).slot.text)),
    },
    proposed,
    entry,
  );
  if (!guarded) return undefined;
  const { accepted, stashes } = guarded;
  const { book } = outputs;
  for (const [key, value] of stashes) book.stash(key, value, accepted.from);
  if (entry.mode !== "off") book.markers++;
  if (entry.mode === "full") for (const id of entry.keys) book.markerIds.add(id);
  for (const state of outputs.states) {
    const { messageIndex } = state.slot;
    if (messageIndex < accepted.from || messageIndex >= accepted.to) continue;
    state.current = state.slot.text;
    state.offloaded = true;
  }
  return accepted;
}
