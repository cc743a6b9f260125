import type { StashEntry } from "../store/types.js";

/**
 * The records /rehydrate reads beside the originals (§2, §7), each scoped to the conversation
 * that was returned: the chain id (session/chain.ts) of the returned message that holds what the
 * record is about. A body /rehydrate is given reaches a record only through the same returned
 * messages, so two conversations that share a session key (a derived key two tenants collide
 * on) never read each other's records, and one conversation's cleaned-up text never restores
 * another's original.
 *
 * - `in:<conversation>:<id>`: marker `id` was written into that conversation;
 * - `rf:<conversation>:<text id>`: the original of a reformatted output;
 * - `sp:<conversation>:<text id>`: the literal spelling of an original (its own escapes);
 * - `msg:<conversation>:<text id>`: the marker id of a summary message.
 */
export type RecordKind = "rf" | "sp" | "msg";

export function recordKey(kind: RecordKind, conversation: string, textId: string): string {
  return `${kind}:${conversation}:${textId}`;
}

export function ownershipKey(conversation: string, id: string): string {
  return `in:${conversation}:${id}`;
}

/** What a run stashes before its conversation is known: a marker's original or a record. */
export interface PendingStash {
  /** A marker id, or a record kind with the id of the text it is keyed by. */
  readonly key: string | { readonly kind: RecordKind; readonly textId: string };
  readonly value: string;
  /** Received message indexes whose returned form holds it. */
  readonly messages: ReadonlySet<number>;
}

/** The store entries of pending stashes, once each message's returned conversation id is known. */
export function scopedEntries(
  stashes: Iterable<PendingStash>,
  conversationOf: (message: number) => string | undefined,
): StashEntry[] {
  const entries: StashEntry[] = [];
  for (const { key, value, messages } of stashes) {
    if (typeof key === "string") entries.push({ key, value });
    for (const message of messages) {
      const conversation = conversationOf(message);
      if (conversation === undefined) continue;
      entries.push(
        typeof key === "string"
          ? { key: ownershipKey(conversation, key), value: "1" }
          : { key: recordKey(key.kind, conversation, key.textId), value },
      );
    }
  }
  return entries;
}
