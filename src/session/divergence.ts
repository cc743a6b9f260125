import { commonPrefixLength } from "../text/common-prefix.js";
import { deepestHead, type Head, type SessionLedger } from "./ledger.js";

/**
 * Where a request's conversation stands against what the session's ledger has seen (§4a "Live
 * sessions"). Each head keeps a short print of every message it received, so a request that
 * leaves the conversation at an already-sent message (the client rewrote, reordered or dropped
 * it) is found at that message, and everything before it is given back as it was returned.
 */

/** Hex characters of a message digest kept in a head's prints: 24 bits a message. */
export const PRINT_CHARS = 6;

/** The prints of a conversation's messages, from their digests (session/chain.ts). */
export function printsOf(digests: readonly string[]): string {
  let prints = "";
  for (const digest of digests) prints += digest.slice(0, PRINT_CHARS);
  return prints;
}

export interface Standing {
  /** The head whose recorded decisions are given back, if any. */
  readonly head: Head | undefined;
  /** Messages from the first whose recorded decisions are given back: all of `head`'s or fewer. */
  readonly through: number;
  /**
   * Set when the request left the conversation at an already-sent message: the server's cache
   * is cold from message `through` whatever the service does.
   */
  readonly diverged: boolean;
}

const NOWHERE: Standing = { head: undefined, through: 0, diverged: false };
const FROM_THE_START: Standing = { head: undefined, through: 0, diverged: true };

/**
 * The standing of a request whose messages have chain ids `chain` (rooted at `root`) and prints
 * `prints`. It stands on the head of its conversation it shares the most messages with, the
 * latest of equals: a head it extends (a new turn, a retry) it stands on whole; a head it shares
 * only a beginning with — the client rewrote, reordered or dropped a message of it, or went back
 * to an earlier turn — it stands on as far as they share, and has diverged there. A request
 * whose tools or system no head of the session was sent with has diverged from its first
 * message. `anyRoot`:
 * the request belongs to the conversation it shares the most messages with, whatever its tools
 * and system (the agent's own compaction request); it never diverges. `named`: the request names
 * its conversation (session/key.ts namesConversation); without a name, a request that parts
 * from a head cannot be told from another conversation under a derived key that shares its
 * first messages, so it stands only on a head it extends, as every conversation sharing the key
 * would.
 */
export function standing(
  ledger: SessionLedger,
  root: string,
  chain: readonly string[],
  prints: string,
  { anyRoot = false, named = true }: { anyRoot?: boolean; named?: boolean } = {},
): Standing {
  if (!named && !anyRoot) {
    const extended = deepestHead(ledger, chain);
    return extended ? { head: extended, through: extended.messages, diverged: false } : NOWHERE;
  }
  let best: { head: Head; shared: number } | undefined;
  for (const head of ledger.heads.values()) {
    if (head.prints === "" || (!anyRoot && head.root !== root)) continue;
    const shared = sharedMessages(head.prints, prints);
    if (
      best === undefined ||
      shared > best.shared ||
      (shared === best.shared && head.at > best.head.at)
    ) {
      best = { head, shared };
    }
  }
  if (best === undefined || best.shared === 0) {
    // Heads recorded before prints were kept are found by their ids alone.
    const extended = anyRoot ? undefined : deepestHead(ledger, chain);
    if (extended) return { head: extended, through: extended.messages, diverged: false };
    // Tools or a system prompt other than every conversation the ledger holds: the prompt's
    // cache is cold from its first message (a system prompt that changed, a resumed session).
    if (best === undefined) return ledger.heads.size > 0 && !anyRoot ? FROM_THE_START : NOWHERE;
  }
  const { head, shared } = best;
  const messages = prints.length / PRINT_CHARS;
  // A request that holds only messages sent before, in order, repeats an earlier turn.
  const diverged = !anyRoot && shared < head.messages && shared < messages;
  return { head, through: Math.min(shared, head.messages), diverged };
}

/** Messages two runs of prints share from the first. */
function sharedMessages(a: string, b: string): number {
  return Math.floor(commonPrefixLength(a, b) / PRINT_CHARS);
}
