import { cacheTreatment } from "../turns.js";
import {
  at,
  check,
  notApplicable,
  type PromiseResult,
  type RunEvidence,
  sessionTurnsOf,
} from "./verdict.js";

/**
 * The agent's own compaction (§4a): its summary request (Claude Code's summary prompt, Codex's
 * checkpoint prompt or `compaction_trigger`) carries the conversation byte for byte as it was
 * last sent, and the turn after it is announced `diverged`.
 */

export function ownCompaction(evidence: RunEvidence): PromiseResult[] {
  const summaries = evidence.analyses.filter(
    (analysis) => analysis.turn.kind === "summary" || analysis.turn.kind === "compaction_trigger",
  );
  const carried = "own compaction: its request carries the conversation byte for byte as last sent";
  const after = "own compaction: the turn after it is announced diverged";
  if (summaries.length === 0) {
    return [
      check(carried, ["the agent never compacted (no summary request seen)"], ""),
      notApplicable(after, "no compaction"),
    ];
  }
  const carriedFailures: string[] = [];
  const afterFailures: string[] = [];
  const session = sessionTurnsOf(evidence);
  for (const summary of summaries) {
    const prefix = summary.prefix;
    if (prefix === undefined)
      carriedFailures.push(`${at(summary.turn)}: shares nothing with an earlier request`);
    else if (prefix.serviceChanges.length > 0) {
      carriedFailures.push(
        `${at(summary.turn)}: item ${prefix.serviceChanges.join(",")} differs from ${summary.predecessor ? at(summary.predecessor) : "?"} as forwarded`,
      );
    }
    const trigger = summary.turn.client?.items.at(-1);
    if (
      summary.turn.kind === "compaction_trigger" &&
      trigger?.raw !== summary.turn.forwarded?.items.at(-1)?.raw
    ) {
      carriedFailures.push(`${at(summary.turn)}: compaction_trigger item not forwarded as sent`);
    }
    const next = session.find(
      (analysis) => analysis.turn.exchange.startedAt > summary.turn.exchange.startedAt,
    );
    if (next === undefined) afterFailures.push(`${at(summary.turn)}: no turn after it`);
    else if (next.turn.reason !== "diverged")
      afterFailures.push(`${at(next.turn)} answered ${cacheTreatment(next.turn)}`);
  }
  const ids = summaries.map((summary) => at(summary.turn)).join(" ");
  return [
    check(carried, carriedFailures, `${summaries.length} (${ids})`),
    check(after, afterFailures, "diverged"),
  ];
}
