import { BenchApp, type BenchPricing, type Mode } from "./bench-app.js";
import type { BenchBody } from "./bench-body.js";
import {
  ownPrices,
  type ReplaySession,
  replayCost,
  SCHEDULES,
  type Schedule,
  type ScheduleCost,
} from "./cost-replay.js";
import { finalCheckpoints } from "./metrics.js";
import { BodyReader } from "./needed-facts/body-reading.js";
import { type FactsSummary, FactsTally } from "./needed-facts/tally.js";
import { type SessionStash, turnFacts } from "./needed-facts/turn-facts.js";
import { PromptTokens } from "./prompt-tokens.js";
import { responsesForm } from "./responses-shape.js";
import { replayTurns } from "./turns.js";

/** A schedule's replay: its cost, and the needed facts of its returned bodies (SPEC §11). */
export interface ScheduleResult extends ScheduleCost {
  readonly facts: FactsSummary;
}

export interface CostResult {
  /** Which sessions were replayed: the corpus as captured, or its chat sessions as Responses. */
  readonly sessionsOf: string;
  readonly mode: Mode;
  readonly preset: string;
  /** `cache.pricing` of the service (the default: auto). */
  readonly pricing: string;
  readonly sessions: number;
  readonly turns: number;
  readonly schedules: readonly ScheduleResult[];
}

/** The sessions of a corpus: each one's final checkpoint, replayed turn by turn. */
export function replaySessions(bodies: readonly BenchBody[]): ReplaySession[] {
  return finalCheckpoints(bodies).map((body) => ({
    name: body.name,
    provider: body.provider,
    turns: replayTurns(body.provider, body.body),
  }));
}

/**
 * The chat sessions as an agent speaking the Responses API sends them: every turn in its
 * Responses form (bench/responses-shape.ts), so both shapes replay the same conversations.
 */
export function responsesSessions(sessions: readonly ReplaySession[]): ReplaySession[] {
  return sessions
    .filter((session) => session.provider === "openai")
    .map((session) => ({
      name: `${session.name}:responses`,
      provider: "responses",
      turns: session.turns.map(responsesForm),
    }));
}

/** What one cost replay runs: the service's mode, preset and pricing, and the schedules. */
export interface CostOptions {
  readonly mode: Mode;
  readonly preset?: string | undefined;
  /** `cache.pricing` of the service (the default: auto). */
  readonly pricing?: BenchPricing | undefined;
  /** Which sessions these are, for the report. */
  readonly sessionsOf?: string;
  /** The cache schedules to replay (default: all three). */
  readonly schedules?: readonly Schedule[] | undefined;
}

/**
 * The session cost replay of SPEC §11 for one mode and preset: every schedule on a fresh
 * service, each session under its own key, cold turns sent with `x-context-guru-cache: cold`;
 * beside the cost, the needed facts of every turn's returned body and what recovering the hidden
 * ones costs.
 */
export async function measureCost(
  sessions: readonly ReplaySession[],
  options: CostOptions,
  prompts = new PromptTokens(),
  reader = new BodyReader(),
): Promise<CostResult> {
  const { mode, preset, pricing } = options;
  const schedules: ScheduleResult[] = [];
  for (const schedule of options.schedules ?? SCHEDULES) {
    const app = await BenchApp.start(mode, preset, pricing);
    const stashes = new Map<string, SessionStash>();
    const facts = new FactsTally();
    const key = (session: ReplaySession) => `cost-${schedule}-${session.name}`;
    const cost = await replayCost(
      sessions,
      schedule,
      async (session, turn, { cold }) => {
        const headers: Record<string, string> = cold ? { "x-context-guru-cache": "cold" } : {};
        const answer = await app.compact(turn, key(session), headers);
        return { text: answer.text, cache: answer.cache, reason: answer.cacheReason };
      },
      prompts,
      async ({ session, index, sent, promptTokens }) => {
        const next = session.turns[index + 1];
        if (next === undefined) {
          facts.skip();
          return;
        }
        let stash = stashes.get(session.name);
        if (!stash) {
          stash = app.stash(key(session));
          stashes.set(session.name, stash);
        }
        const found = await turnFacts({
          provider: session.provider,
          received: session.turns[index] as string,
          next,
          returned: sent.text,
          promptTokens,
          prices: ownPrices(session.provider),
          stash,
          reader,
          tokens: (text) => prompts.count(text),
        });
        facts.add(session.name, index + 1, found);
      },
    );
    schedules.push({ ...cost, facts: facts.summary() });
    await app.close();
  }
  return {
    sessionsOf: options.sessionsOf ?? "the corpus as captured",
    mode,
    preset: preset ?? "agent",
    pricing: typeof pricing === "object" ? JSON.stringify(pricing) : (pricing ?? "auto"),
    sessions: sessions.length,
    turns: sessions.reduce((sum, session) => sum + session.turns.length, 0),
    schedules,
  };
}
