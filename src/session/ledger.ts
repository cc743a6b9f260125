import type { LearnedLifetime } from "../cache/lifetime.js";
import type { CacheObservation } from "../cache/observation.js";
import { isComponentName } from "../config/presets.js";
import type { ComponentName } from "../config/schema.js";

/**
 * The session ledger (§4a): what the service returned for the messages it has seen, so a warm
 * request gives already-sent messages back byte for byte. It holds decisions, never content:
 * for each tool output, the components whose changes made it what it was returned as.
 *
 * A head is recorded at the end of every request, keyed by the conversation id of its last
 * message (session/chain.ts). A later request replays the deepest head its own messages reach:
 * the most recent returned version of the longest prefix it shares with an earlier request, so
 * two conversations under one session key share decisions only as far as their messages are
 * identical.
 */

/** Components whose kept changes made one output what it was returned as, in order applied. */
export type Decision = readonly ComponentName[];

export const VERBATIM: Decision = Object.freeze([]);

export interface Head {
  /** Messages of the request this head was recorded for. */
  readonly messages: number;
  /** The root its conversation's chain starts from (session/root.ts); "" when unknown. */
  readonly root: string;
  /**
   * A short print of each of its received messages (session/divergence.ts), so a later request
   * of the same conversation finds the message where it leaves it; "" when unknown.
   */
  readonly prints: string;
  /** Whether the returned body carried the expand tool. */
  readonly tool: boolean;
  /** The decision of each tool output of those messages, in message order. */
  readonly outputs: readonly Decision[];
  /** The decision of each of the agent's tool calls of those messages, in message order. */
  readonly calls: readonly Decision[];
  /** messages[from..to) returned as one summary message. */
  readonly summary?: { readonly from: number; readonly to: number } | undefined;
  /** When it was recorded (ms since the epoch). */
  readonly at: number;
  /** What the conversation has cost so far, for priced breaks (cache/break-decision.ts). */
  readonly cost?: ConversationCost | undefined;
}

/**
 * A conversation's history as the priced-break decision reads it: its requests and their
 * spacing, the message tokens of its last request as received and as returned, and what its
 * requests cost so far compacted and uncompacted, in uncached-token units of its own pricing.
 */
export interface ConversationCost {
  readonly turns: number;
  /** Of those, requests that met a cold cache (header, lifetime, policy). */
  readonly colds: number;
  /** Which of its requests (1 for the first) met the latest cold cache; 0 while none has. */
  readonly lastCold: number;
  /** Which of its requests the service last broke the warm prefix of on purpose; 0 while none. */
  readonly lastBreak: number;
  /** The runs of warm requests between two cold ones so far, and their requests in all. */
  readonly warmRuns: number;
  readonly warmRunTurns: number;
  /** When its first request was seen (ms since the epoch). */
  readonly since: number;
  readonly before: number;
  readonly after: number;
  readonly spent: number;
  readonly bypass: number;
}

export interface SessionLedger {
  /** When the session's previous request arrived; undefined for a session never seen. */
  readonly lastRequestAt: number | undefined;
  /** Heads by the conversation id of their last message. */
  readonly heads: ReadonlyMap<string, Head>;
  /** Content ids of originals the model expanded: later decisions keep them verbatim. */
  readonly kept: ReadonlySet<string>;
  /**
   * The cache lifetimes learned from what the server served (§4a): the session's own, and the
   * deployment's (read with the ledger, kept apart from it). Absent: no evidence yet.
   */
  readonly learned?: LearnedLifetime | undefined;
  /** What the server served for the session's latest observed request. */
  readonly observed?: CacheObservation | undefined;
}

export const EMPTY_LEDGER: SessionLedger = Object.freeze({
  lastRequestAt: undefined,
  heads: new Map<string, Head>(),
  kept: new Set<string>(),
});

/** What one request adds to its session's ledger, in the same write as its stashes. */
export interface LedgerWrite {
  readonly at: number;
  /** The conversation id of the request's last message; absent for a body without messages. */
  readonly chain?: string | undefined;
  readonly head?: Head | undefined;
  /** Heads to drop so the session keeps at most MAX_HEADS. */
  readonly evict: readonly string[];
}

/** Heads kept per session: its latest requests and the branches a retry or a fork left. */
export const MAX_HEADS = 8;

/** The deepest head a request's messages reach, and how many of its messages it covers. */
export function deepestHead(ledger: SessionLedger, chain: readonly string[]): Head | undefined {
  if (ledger.heads.size === 0) return undefined;
  for (let index = chain.length - 1; index >= 0; index--) {
    const head = ledger.heads.get(chain[index] as string);
    if (head?.messages === index + 1) return head;
  }
  return undefined;
}

/** The ledger write that records `head` under `chain`, dropping the oldest heads beyond the cap. */
export function recordHead(
  ledger: SessionLedger,
  at: number,
  chain: string | undefined,
  head: Head | undefined,
): LedgerWrite {
  if (chain === undefined || head === undefined) return { at, evict: [] };
  const others = [...ledger.heads].filter(([id]) => id !== chain);
  const evict = others
    .sort(([, a], [, b]) => b.at - a.at)
    .slice(MAX_HEADS - 1)
    .map(([id]) => id);
  return { at, chain, head, evict };
}

const decisions = new Map<string, Decision>([["", VERBATIM]]);

/** One shared frozen array per distinct decision, so held heads cost a pointer per output. */
export function internDecision(names: readonly ComponentName[]): Decision {
  const key = names.join(".");
  let decision = decisions.get(key);
  if (decision === undefined) {
    decision = Object.freeze([...names]);
    if (decisions.size < 4096) decisions.set(key, decision);
  }
  return decision;
}

/** A head as text, for backends that keep strings (Redis). */
export function encodeHead(head: Head): string {
  return JSON.stringify({
    m: head.messages,
    r: head.root,
    p: head.prints,
    t: head.tool ? 1 : 0,
    o: head.outputs.map((decision) => decision.join(".")),
    ...(head.calls.length > 0 ? { k: head.calls.map((decision) => decision.join(".")) } : {}),
    a: head.at,
    ...(head.summary ? { s: [head.summary.from, head.summary.to] } : {}),
    ...(head.cost ? { c: encodeCost(head.cost) } : {}),
  });
}

/** The head `text` encodes, or undefined when it is not one (a record of another version). */
export function decodeHead(text: string): Head | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { m, r, p, t, o, k, a, s, c } = value as Record<string, unknown>;
  if (!isCount(m) || !Array.isArray(o) || !isCount(a)) return undefined;
  const outputs = decodeDecisions(o);
  // A head written before calls were decided holds none.
  const calls = k === undefined ? [] : decodeDecisions(k);
  if (outputs === undefined || calls === undefined) return undefined;
  const summary =
    Array.isArray(s) && s.length === 2 && isCount(s[0]) && isCount(s[1])
      ? { from: s[0], to: s[1] }
      : undefined;
  const cost = decodeCost(c);
  return {
    messages: m,
    // A head written before roots and prints were kept describes its messages by its id alone.
    root: typeof r === "string" ? r : "",
    prints: typeof p === "string" ? p : "",
    tool: t === 1,
    outputs,
    calls,
    at: a,
    ...(summary ? { summary } : {}),
    ...(cost ? { cost } : {}),
  };
}

/** Decisions as encodeHead writes them, or undefined when one is not. */
function decodeDecisions(parts: unknown): Decision[] | undefined {
  if (!Array.isArray(parts)) return undefined;
  const decisions: Decision[] = [];
  for (const part of parts) {
    if (typeof part !== "string") return undefined;
    const names = part === "" ? [] : part.split(".");
    if (!names.every(isComponentName)) return undefined;
    decisions.push(internDecision(names));
  }
  return decisions;
}

/** Costs are kept to a tenth of a token: enough for a price judgement, short on the wire. */
function encodeCost(cost: ConversationCost): number[] {
  const tenth = (value: number) => Math.round(value * 10);
  return [
    cost.turns,
    cost.colds,
    cost.since,
    cost.before,
    cost.after,
    tenth(cost.spent),
    tenth(cost.bypass),
    cost.lastCold,
    cost.warmRuns,
    cost.warmRunTurns,
    cost.lastBreak,
  ];
}

function decodeCost(value: unknown): ConversationCost | undefined {
  // Seven numbers: a head written before cold requests were placed in the history (none known);
  // ten: before breaks were.
  if (!Array.isArray(value) || ![7, 10, 11].includes(value.length)) return undefined;
  if (!value.every(isCount)) return undefined;
  const [turns, colds, since, before, after, spent, bypass, ...runs] = value as number[];
  const [lastCold = 0, warmRuns = 0, warmRunTurns = 0, lastBreak = 0] = runs;
  return {
    turns: turns as number,
    colds: colds as number,
    lastCold,
    lastBreak,
    warmRuns,
    warmRunTurns,
    since: since as number,
    before: before as number,
    after: after as number,
    spent: (spent as number) / 10,
    bypass: (bypass as number) / 10,
  };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
