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

/** Compacts one turn; `cold` asks for `x-context-guru-cache: cold`. Returns the body to send. */
export type CompactTurn = (
  session: ReplaySession,
  turn: string,
  options: { readonly cold: boolean; readonly index: number },
) => Promise<string>;

export interface Totals {
  readonly vllm: number;
  readonly anthropic: number;
  /** Tokens of the last turn's prompt. */
  readonly finalTokens: number;
}

export interface SessionCost {
  readonly name: string;
  readonly turns: number;
  readonly compacted: Totals;
  readonly bypass: Totals;
  /** Warm turns (after the first) whose compacted prompt broke the previous one's prefix. */
  readonly breaks: number;
  readonly warmTurns: number;
}

export interface ScheduleCost {
  readonly schedule: Schedule;
  readonly sessions: readonly SessionCost[];
  readonly compacted: Totals;
  readonly bypass: Totals;
  readonly breaks: number;
  readonly warmTurns: number;
}

/** Replays every session under one schedule, compacted and as sent. */
export async function replayCost(
  sessions: readonly ReplaySession[],
  schedule: Schedule,
  compact: CompactTurn,
  prompts = new PromptTokens(),
): Promise<ScheduleCost> {
  const results: SessionCost[] = [];
  for (const session of sessions) {
    const compactedCache = new CacheModel();
    const bypassCache = new CacheModel();
    const compacted = { vllm: 0, anthropic: 0, finalTokens: 0 };
    const bypass = { vllm: 0, anthropic: 0, finalTokens: 0 };
    let breaks = 0;
    let warmTurns = 0;
    for (const [index, turn] of session.turns.entries()) {
      const cold = coldTurn(schedule, index + 1);
      const sent = await compact(session, turn, { cold: schedule !== "warm" && cold, index });
      const mine = compactedCache.charge(prompts.of(session.provider, sent), cold);
      const theirs = bypassCache.charge(prompts.of(session.provider, turn), cold);
      add(compacted, mine);
      add(bypass, theirs);
      if (!cold) {
        warmTurns++;
        if (mine.broke) breaks++;
      }
    }
    results.push({
      name: session.name,
      turns: session.turns.length,
      compacted,
      bypass,
      breaks,
      warmTurns,
    });
  }
  const sum = (pick: (cost: SessionCost) => Totals): Totals => ({
    vllm: results.reduce((total, cost) => total + pick(cost).vllm, 0),
    anthropic: results.reduce((total, cost) => total + pick(cost).anthropic, 0),
    finalTokens: results.reduce((total, cost) => total + pick(cost).finalTokens, 0),
  });
  return {
    schedule,
    sessions: results,
    compacted: sum((cost) => cost.compacted),
    bypass: sum((cost) => cost.bypass),
    breaks: results.reduce((total, cost) => total + cost.breaks, 0),
    warmTurns: results.reduce((total, cost) => total + cost.warmTurns, 0),
  };
}

function add(totals: { vllm: number; anthropic: number; finalTokens: number }, charge: Charge) {
  totals.vllm += charge.vllm;
  totals.anthropic += charge.anthropic;
  totals.finalTokens = charge.tokens;
}

/** Compacted cost against bypass: −0.2 is 20 % cheaper. */
export function change(compacted: number, bypass: number): number {
  return bypass === 0 ? 0 : compacted / bypass - 1;
}

/** The session that fares worst against bypass (largest change of vLLM and Anthropic cost). */
export function worstSession(cost: ScheduleCost): { name: string; change: number } | undefined {
  let worst: { name: string; change: number } | undefined;
  for (const session of cost.sessions) {
    const value = Math.max(
      change(session.compacted.vllm, session.bypass.vllm),
      change(session.compacted.anthropic, session.bypass.anthropic),
    );
    if (!worst || value > worst.change) worst = { name: session.name, change: value };
  }
  return worst;
}
