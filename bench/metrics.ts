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

/** Tokens saved over a set of bodies, counted together: what one request saves, not a session. */
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

/** The exact bytes of each element of a body's `messages`. Throws when the body has none. */
export function messageTexts(text: string): string[] {
  const scan = scanBody(text);
  if (!scan?.members.has("messages")) throw new Error("body has no messages array");
  return scan.messages.map((span) => text.slice(span.start, span.end));
}
