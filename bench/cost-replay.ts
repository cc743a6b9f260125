import { wireShape } from "../src/wire/registry.js";
import type { Provider } from "../src/wire/types.js";
import { commonPrefix, PromptTokens } from "./prompt-tokens.js";

/**
 * The session cost replay of SPEC §11: each session is sent turn by turn with one session key,
 * every returned body is rendered as the model sees it, and each turn is charged the way prefix
 * caches bill it — against the same turns sent uncompacted.
 */

/** When the model server's cache is cold: never (after turn 1), on turn 1 and every 10th, always. */
export type Schedule = "warm" | "cold-every-10" | "cold";
export const SCHEDULES: readonly Schedule[] = ["warm", "cold-every-10", "cold"];

/** vLLM caches the prefix in blocks of this many tokens. */
const VLLM_BLOCK = 16;
const ANTHROPIC_READ = 0.1;
const ANTHROPIC_WRITE = 1.25;
/** vLLM serving and OpenAI's cached input: a cached token costs a tenth of a prefilled one. */
const SERVING_READ = 0.1;

/** Read and write price of a prompt token under a session's own pricing (SPEC §11). */
export function ownPrices(provider: Provider): { read: number; write: number } {
  return provider === "anthropic"
    ? { read: ANTHROPIC_READ, write: ANTHROPIC_WRITE }
    : { read: SERVING_READ, write: 1 };
}

/** Whether turn `turn` (1-based) meets a cold cache under `schedule`. */
export function coldTurn(schedule: Schedule, turn: number): boolean {
  if (schedule === "cold") return true;
  if (schedule === "cold-every-10") return turn === 1 || turn % 10 === 0;
  return turn === 1;
}

export interface Charge {
  readonly tokens: number;
  /** Prompt tokens vLLM prefills: everything after the last whole cached block. */
  readonly vllm: number;
  /** Input cost in units of one uncached token: 0.1 per token read, 1.25 per token written. */
  readonly anthropic: number;
  /**
   * Serving cost (SPEC §11): vLLM's cached blocks at 0.1 (each decoded token reads them, they
   * hold KV memory), the rest prefilled at 1 — also what OpenAI bills cached input at.
   */
  readonly serving: number;
  /** A warm turn whose prompt does not start with the whole previous prompt. */
  readonly broke: boolean;
}

/** What one session's caches hold, turn after turn. */
export class CacheModel {
  #previous: readonly number[] | undefined;
  /** Prompts that ended at a breakpoint since the cache was last cold, longest first. */
  #breakpoints: (readonly number[])[] = [];

  charge(tokens: readonly number[], cold: boolean): Charge {
    if (cold) {
      this.#previous = undefined;
      this.#breakpoints = [];
    }
    const previous = this.#previous;
    const shared = previous ? commonPrefix(previous, tokens) : 0;
    const cachedBlocks = VLLM_BLOCK * Math.floor(shared / VLLM_BLOCK);
    const read =
      this.#breakpoints.find(
        (earlier) =>
          earlier.length <= tokens.length && commonPrefix(earlier, tokens) === earlier.length,
      )?.length ?? 0;
    this.#previous = tokens;
    this.#breakpoints.push(tokens);
    this.#breakpoints.sort((a, b) => b.length - a.length);
    return {
      tokens: tokens.length,
      vllm: tokens.length - cachedBlocks,
      anthropic: ANTHROPIC_READ * read + ANTHROPIC_WRITE * (tokens.length - read),
      serving: SERVING_READ * cachedBlocks + (tokens.length - cachedBlocks),
      broke: previous !== undefined && shared < previous.length,
    };
  }
}

export interface ReplaySession {
  readonly name: string;
  readonly provider: Provider;
  /** The request body of each turn, in order. */
  readonly turns: readonly string[];
}

/** A compacted turn: the body to send, and what the response said it was treated as. */
export interface CompactedTurn {
  readonly text: string;
  /** `x-context-guru-cache` and `x-context-guru-cache-reason` of the response. */
  readonly cache?: string | undefined;
  readonly reason?: string | undefined;
}

/**
 * Compacts one turn; `cold` asks for `x-context-guru-cache: cold`. Returns the body to send (a
 * bare string: a response that announced nothing).
 */
export type CompactTurn = (
  session: ReplaySession,
  turn: string,
  options: { readonly cold: boolean; readonly index: number },
) => Promise<string | CompactedTurn>;

export interface Totals {
  readonly vllm: number;
  readonly anthropic: number;
  readonly serving: number;
  /** Each session priced as its shape is billed: Anthropic-shaped as Anthropic, others serving. */
  readonly own: number;
  /** Tokens of the last turn's prompt. */
  readonly finalTokens: number;
}

export interface SessionCost {
  readonly name: string;
  readonly provider: Provider;
  readonly turns: number;
  readonly compacted: Totals;
  readonly bypass: Totals;
  /**
   * Warm turns (after the first) whose compacted prompt broke the previous one's prefix while
   * the response said warm: unannounced breaks, which must not happen.
   */
  readonly breaks: number;
  /** Warm turns the service announced as cold, by `x-context-guru-cache-reason`. */
  readonly announced: Readonly<Record<string, number>>;
  readonly warmTurns: number;
}

export interface ScheduleCost {
  readonly schedule: Schedule;
  readonly sessions: readonly SessionCost[];
  readonly compacted: Totals;
  readonly bypass: Totals;
  readonly breaks: number;
  readonly announced: Readonly<Record<string, number>>;
  readonly warmTurns: number;
}

/** A turn as it was replayed: the body sent for it, and the tokens of its prompt. */
export interface ReplayedTurn {
  readonly session: ReplaySession;
  /** Position of the turn in the session, 0-based. */
  readonly index: number;
  readonly sent: CompactedTurn;
  readonly promptTokens: number;
}

/** Told each turn once it is charged (the needed-facts measure reads the bodies there). */
export type ObserveTurn = (turn: ReplayedTurn) => Promise<void>;

/** Replays every session under one schedule, compacted and as sent. */
export async function replayCost(
  sessions: readonly ReplaySession[],
  schedule: Schedule,
  compact: CompactTurn,
  prompts = new PromptTokens(),
  observe?: ObserveTurn,
): Promise<ScheduleCost> {
  const results: SessionCost[] = [];
  for (const session of sessions) {
    const compactedCache = new CacheModel();
    const bypassCache = new CacheModel();
    const compacted = emptyTotals();
    const bypass = emptyTotals();
    let breaks = 0;
    const announced: Record<string, number> = {};
    let warmTurns = 0;
    // Own pricing (§11): each session billed as its shape is.
    const own = wireShape(session.provider).pricing === "anthropic" ? "anthropic" : "serving";
    for (const [index, turn] of session.turns.entries()) {
      const cold = coldTurn(schedule, index + 1);
      const answer = await compact(session, turn, { cold: schedule !== "warm" && cold, index });
      const sent = typeof answer === "string" ? { text: answer } : answer;
      const mine = compactedCache.charge(prompts.of(session.provider, sent.text), cold);
      const theirs = bypassCache.charge(prompts.of(session.provider, turn), cold);
      add(compacted, mine, own);
      add(bypass, theirs, own);
      await observe?.({ session, index, sent, promptTokens: mine.tokens });
      if (!cold) {
        warmTurns++;
        if (sent.cache === "cold") {
          const reason = sent.reason ?? "";
          announced[reason] = (announced[reason] ?? 0) + 1;
        } else if (mine.broke) breaks++;
      }
    }
    results.push({
      name: session.name,
      provider: session.provider,
      turns: session.turns.length,
      compacted,
      bypass,
      breaks,
      announced,
      warmTurns,
    });
  }
  const announced: Record<string, number> = {};
  for (const cost of results) {
    for (const [reason, count] of Object.entries(cost.announced)) {
      announced[reason] = (announced[reason] ?? 0) + count;
    }
  }
  return {
    schedule,
    sessions: results,
    compacted: sumTotals(results, (cost) => cost.compacted),
    bypass: sumTotals(results, (cost) => cost.bypass),
    breaks: results.reduce((total, cost) => total + cost.breaks, 0),
    announced,
    warmTurns: results.reduce((total, cost) => total + cost.warmTurns, 0),
  };
}

/** One wire format's sessions of a schedule's replay, summed. */
export interface ShapeCost {
  readonly provider: Provider;
  readonly sessions: number;
  readonly compacted: Totals;
  readonly bypass: Totals;
  readonly breaks: number;
  readonly warmTurns: number;
}

/** A schedule's replay summed per wire format, in the order the formats first appear. */
export function costByShape(cost: ScheduleCost): ShapeCost[] {
  const providers = [...new Set(cost.sessions.map((session) => session.provider))];
  return providers.map((provider) => {
    const sessions = cost.sessions.filter((session) => session.provider === provider);
    return {
      provider,
      sessions: sessions.length,
      compacted: sumTotals(sessions, (session) => session.compacted),
      bypass: sumTotals(sessions, (session) => session.bypass),
      breaks: sessions.reduce((total, session) => total + session.breaks, 0),
      warmTurns: sessions.reduce((total, session) => total + session.warmTurns, 0),
    };
  });
}

function sumTotals(sessions: readonly SessionCost[], pick: (cost: SessionCost) => Totals): Totals {
  const totals = emptyTotals();
  for (const key of Object.keys(totals) as (keyof Totals)[]) {
    totals[key] = sessions.reduce((total, cost) => total + pick(cost)[key], 0);
  }
  return totals;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function emptyTotals(): Mutable<Totals> {
  return { vllm: 0, anthropic: 0, serving: 0, own: 0, finalTokens: 0 };
}

function add(totals: Mutable<Totals>, charge: Charge, own: "anthropic" | "serving") {
  totals.vllm += charge.vllm;
  totals.anthropic += charge.anthropic;
  totals.serving += charge.serving;
  totals.own += charge[own];
  totals.finalTokens = charge.tokens;
}

/** Compacted cost against bypass: −0.2 is 20 % cheaper. */
export function change(compacted: number, bypass: number): number {
  return bypass === 0 ? 0 : compacted / bypass - 1;
}

/** The session that fares worst against bypass under its own pricing. */
export function worstSession(cost: ScheduleCost): { name: string; change: number } | undefined {
  let worst: { name: string; change: number } | undefined;
  for (const session of cost.sessions) {
    const value = change(session.compacted.own, session.bypass.own);
    if (!worst || value > worst.change) worst = { name: session.name, change: value };
  }
  return worst;
}
