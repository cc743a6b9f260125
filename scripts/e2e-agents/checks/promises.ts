import { ownCompaction } from "./compaction-promises.js";
import { expandRounds } from "./expand.js";
import {
  cleanBody,
  firstTurn,
  markedReductions,
  noLeak,
  roundTrips,
  toolFromFirst,
  warmIdentity,
} from "./session-promises.js";
import type { PromiseResult, RunEvidence } from "./verdict.js";
import {
  countTokensAnswers,
  finished,
  headersForwarded,
  noServiceErrors,
  opaqueIntact,
  streamsWellFormed,
  websocketFallback,
} from "./wire-promises.js";

/**
 * The promises of issue 38 that apply to a run, by its scenario: every run keeps the wire
 * promises; reversible runs the session promises (a resumed fork's changes named apart), clean
 * runs theirs; Claude Code's runs the count_tokens promise, Codex's built-in provider the
 * WebSocket one, runs with the agent's own compaction forced low the compaction promises.
 */

export type { PromiseResult, RunEvidence, Verdict } from "./verdict.js";

export function runPromises(evidence: RunEvidence): PromiseResult[] {
  const { scenario, run } = evidence;
  const fork = run.spec.cli === "claude" && run.spec.forkOf !== undefined;
  const builtin = run.spec.cli === "codex" && run.spec.provider === "builtin";
  const results = [
    finished(evidence),
    streamsWellFormed(evidence),
    headersForwarded(evidence),
    opaqueIntact(evidence),
    noLeak(evidence),
  ];
  if (scenario.mode === "reversible") {
    const rounds = expandRounds(evidence.turns);
    results.push(
      toolFromFirst(evidence),
      markedReductions(evidence),
      roundTrips(rounds, scenario.ownCompaction),
    );
    results.push(
      warmIdentity(
        evidence,
        fork
          ? "resumed fork: 0 unannounced changes"
          : "already-sent messages byte-identical on warm turns",
      ),
    );
    if (!fork) results.push(firstTurn(evidence));
  } else {
    results.push(cleanBody(evidence));
  }
  if (run.spec.cli === "claude") results.push(countTokensAnswers(evidence));
  if (builtin) results.push(websocketFallback(evidence));
  if (scenario.ownCompaction) results.push(...ownCompaction(evidence));
  results.push(noServiceErrors(evidence));
  return results;
}
