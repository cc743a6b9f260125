import { scanBody } from "../src/wire/json-scan.js";

/** Message tokens of one body before and after compaction. */
export interface TokenCount {
  readonly before: number;
  readonly after: number;
}

export interface Savings {
  readonly before: number;
  readonly after: number;
  readonly saved: number;
  /** saved / before; null when there was nothing to count. */
  readonly share: number | null;
}

/** Tokens saved over a set of bodies, counted together (issue 3's "tokens saved"). */
export function tokenSavings(counts: readonly TokenCount[]): Savings {
  let before = 0;
  let after = 0;
  for (const count of counts) {
    before += count.before;
    after += count.after;
  }
  const saved = before - after;
  return { before, after, saved, share: before > 0 ? saved / before : null };
}

/** The last body of each session (its final checkpoint), in the order sessions first appear. */
export function finalCheckpoints<T extends { readonly session: string }>(
  bodies: readonly T[],
): T[] {
  const last = new Map<string, T>();
  for (const body of bodies) {
    last.delete(body.session);
    last.set(body.session, body);
  }
  const order = [...new Set(bodies.map((body) => body.session))];
  return order.map((session) => last.get(session) as T);
}

export interface CacheFriendliness {
  /** Turn-to-turn steps measured (a session of n turns has n − 1). */
  readonly transitions: number;
  /** Mean over steps of the share of already-sent messages whose bytes did not change. */
  readonly average: number | null;
  /** The same share pooled over every already-sent message of every step. */
  readonly pooled: number | null;
  /** Mean over steps of the share of already-sent messages before the first changed one. */
  readonly prefix: number | null;
}

/**
 * How well compaction keeps provider prompt caches warm. `sessions[s][t]` holds the compacted
 * bytes of each message of session s at turn t; on every step t → t + 1, each message sent at t
 * counts as kept when message i of turn t + 1 has exactly the same bytes.
 */
export function cacheFriendliness(
  sessions: readonly (readonly (readonly string[])[])[],
): CacheFriendliness {
  let transitions = 0;
  let shareSum = 0;
  let prefixSum = 0;
  let kept = 0;
  let sent = 0;
  for (const turns of sessions) {
    for (let turn = 1; turn < turns.length; turn++) {
      const previous = turns[turn - 1] as readonly string[];
      const next = turns[turn] as readonly string[];
      if (previous.length === 0) continue;
      let same = 0;
      let prefix = -1;
      previous.forEach((message, index) => {
        if (next[index] === message) same++;
        else if (prefix < 0) prefix = index;
      });
      transitions++;
      shareSum += same / previous.length;
      prefixSum += (prefix < 0 ? previous.length : prefix) / previous.length;
      kept += same;
      sent += previous.length;
    }
  }
  return {
    transitions,
    average: transitions > 0 ? shareSum / transitions : null,
    pooled: sent > 0 ? kept / sent : null,
    prefix: transitions > 0 ? prefixSum / transitions : null,
  };
}

/** The exact bytes of each element of a body's `messages`. Throws when the body has none. */
export function messageTexts(text: string): string[] {
  const scan = scanBody(text);
  if (!scan?.members.has("messages")) throw new Error("body has no messages array");
  return scan.messages.map((span) => text.slice(span.start, span.end));
}
