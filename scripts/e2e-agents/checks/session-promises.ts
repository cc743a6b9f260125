import { cacheTreatment } from "../turns.js";
import { type ExpandRound, expandLeaks } from "./expand.js";
import { unannouncedChanges } from "./turn-analysis.js";
import {
  at,
  check,
  notApplicable,
  type PromiseResult,
  type RunEvidence,
  sessionTurnsOf,
} from "./verdict.js";

/**
 * What a session through the service must keep (§4a "Live sessions", §8): the expand tool from
 * the first tool-bearing request on, a marker on every reduction, expand round trips answered
 * with the client's original, the tool never shown to the client, already-sent messages
 * byte-identical on warm turns, the first turn decided as a first; in clean mode no marker and
 * no tool.
 */

export function toolFromFirst(evidence: RunEvidence): PromiseResult {
  const name = "expand tool offered from the first tool-bearing request on";
  const session = sessionTurnsOf(evidence).filter(
    (analysis) => (analysis.turn.client?.toolNames.length ?? 0) > 0,
  );
  if (session.length === 0) return notApplicable(name, "no tool-bearing request");
  const missing = session.filter((analysis) => !analysis.expandOffered);
  const first = session.find((analysis) => analysis.expandOffered);
  return check(
    name,
    missing.length === 0
      ? []
      : [
          `absent on ${missing.length} of ${session.length} (${missing.map((analysis) => `#${analysis.turn.index}`).join(" ")}); first offered ${first ? `on #${first.turn.index}` : "never"}`,
        ],
    `from #${session[0]?.turn.index} on`,
  );
}

const CONVERSATION_KINDS = new Set(["turn", "summary", "compaction_trigger"]);

/**
 * Reductions anywhere in the agent's conversation — its own summary requests included: with
 * its compaction forced early, an output may be reduced for the first time in one.
 */
export function markedReductions(evidence: RunEvidence): PromiseResult {
  const unmarked = new Map<string, number>();
  const markers = new Set<string>();
  const conversation = evidence.analyses.filter((analysis) =>
    CONVERSATION_KINDS.has(analysis.turn.kind),
  );
  for (const analysis of conversation) {
    for (const id of analysis.markerIds) markers.add(id);
    for (const verdict of analysis.outputs) {
      if (verdict.fate === "unmarked" && !unmarked.has(verdict.output.callId)) {
        unmarked.set(verdict.output.callId, analysis.turn.index);
      }
    }
  }
  const failures = [...unmarked].map(
    ([callId, index]) => `${callId} reduced without a marker from #${index} on`,
  );
  if (markers.size === 0) failures.unshift("no marker written");
  return check("reduced outputs carry markers", failures, `${markers.size} markers`);
}

/**
 * `optional`: a run where the agent's own compaction may drop the history before a turn offers
 * a marker with the tool; no round is then no failure (the tool's presence is checked apart).
 */
export function roundTrips(rounds: readonly ExpandRound[], optional = false): PromiseResult {
  const name = "expand round trip answered with the client's original";
  const failures = rounds
    .filter((round) => !round.ok)
    .map((round) => `${at(round.turn)} ${round.markerId}: ${round.detail}`);
  if (rounds.length === 0 && optional) {
    return notApplicable(name, "no turn offered a marker with the tool");
  }
  if (rounds.length === 0)
    failures.push("no expand round (the model was never offered a marker with the tool)");
  const ok = rounds.filter((round) => round.ok);
  return check(
    name,
    failures,
    ok.map((round) => `${at(round.turn)} ${round.markerId}: ${round.detail}`).join("; "),
  );
}

export function noLeak(evidence: RunEvidence): PromiseResult {
  const leaks = expandLeaks(evidence.turns);
  return check(
    "context_guru_expand never reaches the client",
    leaks.map((turn) => `${at(turn)} names it`),
    "never",
  );
}

export function warmIdentity(evidence: RunEvidence, name: string): PromiseResult {
  const failures: string[] = [];
  let moves = 0;
  for (const analysis of sessionTurnsOf(evidence)) {
    moves += analysis.prefix?.cacheControlMoves ?? 0;
    const changed = unannouncedChanges(analysis);
    if (changed === 0) continue;
    const prefix = analysis.prefix;
    const items = prefix?.serviceChanges.join(",") ?? "";
    failures.push(
      `${at(analysis.turn)} (${cacheTreatment(analysis.turn)}) changed ${items ? `item ${items}` : ""}${prefix?.headChanged ? " tools/system" : ""} of ${analysis.predecessor ? at(analysis.predecessor) : "?"}`,
    );
  }
  return check(name, failures, `0 unannounced (${moves} cache_control moves by the client)`);
}

export function firstTurn(evidence: RunEvidence): PromiseResult {
  const name = "first turn decided as a session's first (reason first), not warm";
  const first = sessionTurnsOf(evidence)[0];
  if (first === undefined) return notApplicable(name, "no turn");
  const titles = evidence.turns.filter(
    (turn) => turn.kind === "title" && turn.exchange.startedAt < first.turn.exchange.startedAt,
  );
  const seen = `${cacheTreatment(first.turn)}${titles.length > 0 ? ` after ${titles.length} title request(s)` : ""}`;
  const ok = first.turn.reason === "first" && first.turn.cache !== "warm";
  return check(name, ok ? [] : [`${at(first.turn)} answered ${seen}`], `${at(first.turn)} ${seen}`);
}

export function cleanBody(evidence: RunEvidence): PromiseResult {
  const failures: string[] = [];
  for (const analysis of evidence.analyses) {
    if (analysis.markerIds.length > 0)
      failures.push(`${at(analysis.turn)}: ${analysis.markerIds.length} markers`);
    if (analysis.expandOffered) failures.push(`${at(analysis.turn)}: expand tool offered`);
  }
  return check("clean mode: no marker, no expand tool", failures, "none");
}
