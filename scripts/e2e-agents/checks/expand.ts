import { readRequest } from "../conversation.js";
import type { Plan } from "../model/plan.js";
import type { Turn } from "../turns.js";
import { originalBehind } from "./outputs.js";

/**
 * Expand round trips (§8): when the model called `context_guru_expand`, the service must answer
 * in its continuation with the client's original output, byte for byte — the output string the
 * client itself sent in that exchange, which the marker stood for.
 */

export interface ExpandRound {
  readonly turn: Turn;
  readonly markerId: string;
  readonly ok: boolean;
  readonly detail: string;
}

function firstDifference(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  for (let index = 0; index < limit; index++) if (a[index] !== b[index]) return index;
  return limit;
}

export function expandRounds(turns: readonly Turn[]): ExpandRound[] {
  const rounds: ExpandRound[] = [];
  for (const turn of turns) {
    const { shape, client } = turn;
    if (shape === undefined || client === undefined) continue;
    for (const [index, round] of turn.rounds.entries()) {
      const plan: Plan | undefined = round.plan;
      if (plan?.kind !== "expand" || round.expandCall === undefined) continue;
      const { markerId } = plan;
      const failed = (detail: string) => {
        rounds.push({ turn, markerId, ok: false, detail });
      };
      const asked = readRequest(shape, round.body);
      const original = asked && originalBehind(markerId, client, asked);
      if (original === undefined) {
        failed("the marker is in no output of the request");
        continue;
      }
      const next = turn.rounds[index + 1];
      if (next === undefined) {
        failed("the service did not continue (no next round)");
        continue;
      }
      const continued = readRequest(shape, next.body);
      const answer = continued?.outputs.find((output) => output.callId === round.expandCall);
      if (answer === undefined) {
        failed("the continuation has no result for the call");
        continue;
      }
      if (answer.text === original.text) {
        rounds.push({
          turn,
          markerId,
          ok: true,
          detail: `${original.text.length} chars, identical`,
        });
        continue;
      }
      const at = firstDifference(answer.text, original.text);
      failed(
        `differs from the client's original at char ${at} (${answer.text.length} vs ${original.text.length} chars): ${JSON.stringify(answer.text.slice(at, at + 60))}`,
      );
    }
  }
  return rounds;
}

/** Responses the client got that still name the expand tool (must be none). */
export function expandLeaks(turns: readonly Turn[]): Turn[] {
  return turns.filter((turn) => turn.exchange.responseBody.includes("context_guru_expand"));
}
