import { hash } from "node:crypto";
import { LRUCache } from "lru-cache";

/**
 * Conversation ids (§4a): message k's id is a hash of message k−1's id and message k's digest,
 * so two requests share an id exactly as far as their messages are identical — as a provider's
 * prefix cache does. The chain starts from `root`: the received conversation's starts from what
 * heads the prompt before its messages (session/root.ts), so a side call of the same agent with
 * other tools or another system prompt shares nothing with it; "" where no root applies. A
 * message's digest is a hash of its JSON as sent, except that `cache_control` members are left
 * out: clients move their cache breakpoints from turn to turn (Anthropic), and a moved
 * breakpoint changes nothing the model reads.
 */
export function chainIds(digests: readonly string[], root = ""): string[] {
  const ids: string[] = [];
  let previous = root;
  for (const digest of digests) {
    previous = link(previous, digest);
    ids.push(previous);
  }
  return ids;
}

function link(previous: string, digest: string): string {
  return hash("sha256", `${previous}\u0000${digest}`).slice(0, 32);
}

/** The digest of one message: `raw` is its JSON as sent, `value` reads it parsed when needed. */
export function messageDigest(raw: string, value: () => unknown): string {
  return hash("sha256", withoutBreakpoints(raw, value));
}

/** `raw` (JSON as sent) with its `cache_control` members left out; `value` reads it parsed. */
export function withoutBreakpoints(raw: string, value: () => unknown): string {
  return raw.includes('"cache_control"') ? JSON.stringify(withoutCacheControl(value())) : raw;
}

/** One session's messages as last seen on one side (received, or returned), by position. */
interface Seen {
  /** The root the ids below were chained from. */
  root: string;
  readonly raws: (string | undefined)[];
  readonly digests: string[];
  readonly ids: string[];
  chars: number;
}

/** A conversation's messages: the digest and the chain id of each. */
export interface Chain {
  readonly digests: readonly string[];
  readonly ids: readonly string[];
}

/** Conversations remembered per session and side: an agent's subagents share its session. */
const CONVERSATIONS_PER_SESSION = 4;

/**
 * Conversation chains remembered by position: an agent re-sends every earlier message each turn
 * at the same index, so a warm request compares each message with the one its conversation had
 * there last (a string comparison, several times faster than hashing it), hashes only what is
 * new or changed, and reuses the chain ids as far as nothing before differed. A conversation is
 * told by its first message, a few per session and side; bounded by the characters held. A held
 * text is a copy, not a slice of the body it came in, so it does not keep that whole body alive.
 */
export class ChainMemo {
  readonly #seen: LRUCache<string, Seen[]>;

  constructor(maxChars: number) {
    this.#seen = new LRUCache<string, Seen[]>({
      maxSize: Math.max(1, maxChars),
      sizeCalculation: (list) =>
        list.reduce((sum, seen) => sum + seen.chars + 96 * seen.raws.length, 1),
    });
  }

  /**
   * The chain of `raws` as `side` of `session`: each message's JSON as sent, or undefined where
   * its digest is given in `known`; `value` reads message `index` parsed when needed.
   * `bodyChars` is the length of the text the raws are slices of, when they are; `root` what the
   * chain starts from (chainIds).
   */
  chain(
    session: string,
    side: "received" | "returned",
    raws: readonly (string | undefined)[],
    value: (index: number) => unknown,
    {
      known = [],
      bodyChars,
      root = "",
    }: { known?: readonly string[]; bodyChars?: number; root?: string } = {},
  ): Chain {
    const key = `${side}\u0000${session}`;
    const list = this.#seen.get(key) ?? [];
    const seen = conversationOf(list, raws[0], known[0]);
    const digests: string[] = [];
    const ids: string[] = [];
    // Ids chained from another root are not these messages' ids, though their digests are.
    let same = seen.root === root;
    seen.root = root;
    let previous = root;
    for (const [index, raw] of raws.entries()) {
      const held = seen.raws[index];
      let digest: string;
      if (raw === undefined) digest = known[index] as string;
      else if (held === raw) digest = seen.digests[index] as string;
      else digest = messageDigest(raw, () => value(index));
      // A message given by its digest alone keeps the text held for it while the digest is the same.
      const keep = held === raw || (raw === undefined && seen.digests[index] === digest);
      if (!keep) {
        seen.chars += (raw?.length ?? 0) - (held?.length ?? 0);
        seen.raws[index] = raw === undefined ? undefined : retained(raw, bodyChars);
      }
      same &&= seen.digests[index] === digest;
      previous = same ? (seen.ids[index] as string) : link(previous, digest);
      seen.digests[index] = digest;
      seen.ids[index] = previous;
      digests.push(digest);
      ids.push(previous);
    }
    this.#seen.set(key, list);
    return { digests, ids };
  }
}

/** The remembered conversation that opens with this first message, brought first, or a new one. */
function conversationOf(list: Seen[], raw: string | undefined, digest: string | undefined): Seen {
  const at = list.findIndex((seen) =>
    raw === undefined ? seen.digests[0] === digest : seen.raws[0] === raw,
  );
  const seen =
    at < 0 ? { root: "", raws: [], digests: [], ids: [], chars: 0 } : list.splice(at, 1)[0];
  list.unshift(seen as Seen);
  if (list.length > CONVERSATIONS_PER_SESSION) list.pop();
  return seen as Seen;
}

/**
 * What the memo holds of a message: a string of its own (slicing a concatenation flattens it
 * into new storage), so that it does not keep the body it was sliced from alive — unless it is
 * most of that body (the message of a huge tool output): the slice then keeps at most as much
 * again alive, and copying a megabyte would cost more than the rest of the chain.
 */
function retained(raw: string, bodyChars: number | undefined): string {
  if (bodyChars !== undefined && raw.length * 2 >= bodyChars) return raw;
  return ` ${raw}`.slice(1);
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key !== "cache_control") copy[key] = withoutCacheControl(member);
  }
  return copy;
}
