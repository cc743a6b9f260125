import { BenchApp, type BenchPricing, type Mode } from "./bench-app.js";
import type { BenchBody } from "./bench-body.js";
import { type ReplaySession, replayCost, SCHEDULES, type ScheduleCost } from "./cost-replay.js";
import { finalCheckpoints } from "./metrics.js";
import { PromptTokens } from "./prompt-tokens.js";
import { responsesForm } from "./responses-shape.js";
import { replayTurns } from "./turns.js";

export interface CostResult {
  /** Which sessions were replayed: the corpus as captured, or its chat sessions as Responses. */
  readonly sessionsOf: string;
  readonly mode: Mode;
  readonly preset: string;
  /** `cache.pricing` of the service (the default: auto). */
  readonly pricing: string;
  readonly sessions: number;
  readonly turns: number;
  readonly schedules: readonly ScheduleCost[];
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

/**
 * The session cost replay of SPEC §11 for one mode and preset: every schedule on a fresh
 * service, each session under its own key, cold turns sent with `x-context-guru-cache: cold`.
 */
export async function measureCost(
  sessions: readonly ReplaySession[],
  mode: Mode,
  preset: string | undefined,
  prompts = new PromptTokens(),
  pricing?: BenchPricing,
  sessionsOf = "the corpus as captured",
): Promise<CostResult> {
  const schedules: ScheduleCost[] = [];
  for (const schedule of SCHEDULES) {
    const app = await BenchApp.start(mode, preset, pricing);
    schedules.push(
      await replayCost(
        sessions,
        schedule,
        async (session, turn, { cold }) => {
          const headers: Record<string, string> = cold ? { "x-context-guru-cache": "cold" } : {};
          const answer = await app.compact(turn, `cost-${schedule}-${session.name}`, headers);
          return { text: answer.text, cache: answer.cache, reason: answer.cacheReason };
        },
        prompts,
      ),
    );
    await app.close();
  }
  return {
    sessionsOf,
    mode,
    preset: preset ?? "agent",
    pricing: typeof pricing === "object" ? JSON.stringify(pricing) : (pricing ?? "auto"),
    sessions: sessions.length,
    turns: sessions.reduce((sum, session) => sum + session.turns.length, 0),
    schedules,
  };
}
