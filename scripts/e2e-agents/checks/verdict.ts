import type { UpgradeAttempt } from "../records.js";
import type { RunOutcome } from "../run-scenario.js";
import type { Scenario } from "../scenarios.js";
import { sessionTurns, type Turn } from "../turns.js";
import type { TurnAnalysis } from "./turn-analysis.js";

/**
 * A promise's verdict with its evidence — what held, or exactly what the harness saw when it
 * did not — and what every promise reads of a run.
 */

export type Verdict = "PASS" | "FAIL" | "n/a";

export interface PromiseResult {
  readonly name: string;
  readonly verdict: Verdict;
  readonly evidence: string;
}

export interface RunEvidence {
  readonly scenario: Scenario;
  readonly run: RunOutcome;
  readonly turns: readonly Turn[];
  readonly analyses: readonly TurnAnalysis[];
  readonly upgrades: readonly UpgradeAttempt[];
  readonly serviceErrors: readonly string[];
}

/** PASS with `passed`, or FAIL with the first few failures. */
export const check = (
  name: string,
  failures: readonly string[],
  passed: string,
): PromiseResult => ({
  name,
  verdict: failures.length === 0 ? "PASS" : "FAIL",
  evidence:
    failures.length === 0
      ? passed
      : failures.slice(0, 4).join("; ") +
        (failures.length > 4 ? `; … ${failures.length - 4} more` : ""),
});

export const notApplicable = (name: string, why: string): PromiseResult => ({
  name,
  verdict: "n/a",
  evidence: why,
});

/** A request as the tables name it: its place in the run and its exchange. */
export const at = (turn: Turn) => `#${turn.index} ${turn.exchange.id}`;

/** The analyses of the agent's own turns. */
export function sessionTurnsOf(evidence: RunEvidence): TurnAnalysis[] {
  const session = new Set(sessionTurns(evidence.turns));
  return evidence.analyses.filter((analysis) => session.has(analysis.turn));
}
