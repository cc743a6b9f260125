import { FORK_ANSWER, SESSION_ANSWER } from "../model/session-script.js";
import { headerValue } from "../records.js";
import { countTokensProblems } from "./count-tokens.js";
import { headerDifference } from "./headers.js";
import { alteredParts, opaqueParts } from "./opaque-parts.js";
import { responseProblem } from "./streams.js";
import { at, check, notApplicable, type PromiseResult, type RunEvidence } from "./verdict.js";

/**
 * What every run must keep on the wire: the CLI finishes with the scripted answer, every
 * response is well formed, headers and opaque parts reach the model as the client sent them,
 * count_tokens is counted by the model, Codex falls back from its WebSocket at once, and the
 * service logs no error.
 */

/** How soon after its WebSocket attempt Codex's first HTTP request must come. */
export const FALLBACK_MS = 500;

export function finished(evidence: RunEvidence): PromiseResult {
  const { result, spec } = evidence.run;
  const answer = spec.cli === "claude" && spec.forkOf !== undefined ? FORK_ANSWER : SESSION_ANSWER;
  const failures: string[] = [];
  if (result.timedOut) failures.push("timed out");
  if (result.exitCode !== 0)
    failures.push(
      `exit ${result.exitCode ?? result.signal}: ${result.stderr.trim().split("\n").at(-1) ?? ""}`,
    );
  if (!result.stdout.includes(answer)) failures.push("the scripted answer is not in its output");
  return check(
    "exit 0 with the scripted answer",
    failures,
    `exit 0, answered "${answer.slice(0, 24)}…"`,
  );
}

export function streamsWellFormed(evidence: RunEvidence): PromiseResult {
  const failures: string[] = [];
  let checked = 0;
  for (const turn of evidence.turns) {
    if (turn.shape === undefined || turn.exchange.status !== 200) continue;
    checked++;
    if (turn.exchange.error !== undefined) failures.push(`${at(turn)}: ${turn.exchange.error}`);
    const type = headerValue(turn.exchange.responseHeaders, "content-type") ?? "";
    const problem = responseProblem(turn.shape, type, turn.exchange.responseBody);
    if (problem !== undefined) failures.push(`${at(turn)}: ${problem}`);
  }
  return check("every response well formed", failures, `${checked} responses`);
}

export function headersForwarded(evidence: RunEvidence): PromiseResult {
  const failures: string[] = [];
  const added = new Set<string>();
  for (const turn of evidence.turns) {
    const first = turn.rounds[0];
    if (first === undefined) continue;
    const difference = headerDifference(turn.exchange.requestHeaders, first.rawHeaders);
    for (const name of difference.missing) failures.push(`${at(turn)}: ${name} not forwarded`);
    for (const change of difference.changed) failures.push(`${at(turn)}: ${change}`);
    for (const name of difference.added) added.add(name);
  }
  return check(
    "client headers reach the upstream unchanged",
    [...new Set(failures)],
    `all forwarded${added.size > 0 ? ` (the service's fetch adds ${[...added].join(", ")})` : ""}`,
  );
}

export function opaqueIntact(evidence: RunEvidence): PromiseResult {
  const failures: string[] = [];
  const counts = { signatures: 0, encrypted: 0, patches: 0, breakpoints: 0 };
  for (const analysis of evidence.analyses) {
    const { client, forwarded } = analysis.turn;
    if (client === undefined || forwarded === undefined) continue;
    const parts = opaqueParts(client);
    for (const key of Object.keys(counts) as (keyof typeof counts)[]) {
      counts[key] += parts[key].length;
    }
    for (const part of alteredParts(client, forwarded))
      failures.push(`${at(analysis.turn)}: ${part}`);
  }
  return check(
    "signatures, encrypted items, patches, cache_control byte-identical",
    failures,
    `${counts.signatures} thinking signatures, ${counts.encrypted} encrypted items, ${counts.patches} patches, ${counts.breakpoints} cache_control breakpoints sent, all forwarded as sent`,
  );
}

export function countTokensAnswers(evidence: RunEvidence): PromiseResult {
  const name = "count_tokens answers what the following /v1/messages costs";
  const counts = evidence.turns.filter((turn) => turn.route === "count_tokens");
  if (counts.length === 0) return notApplicable(name, "no count_tokens call");
  const failures = counts.flatMap((count) =>
    countTokensProblems(
      count,
      evidence.turns.filter((turn) => turn.exchange.startedAt > count.exchange.startedAt),
    ),
  );
  return check(name, failures, `${counts.length} call(s) counted by the model as sent`);
}

export function websocketFallback(evidence: RunEvidence): PromiseResult {
  const name = `WebSocket attempt answered, first HTTP request ≤ ${FALLBACK_MS} ms later, no reconnect`;
  const attempt = evidence.upgrades[0];
  if (attempt === undefined) return check(name, ["no upgrade attempt seen"], "");
  const post = evidence.turns.find(
    (turn) => turn.route === "responses" && turn.exchange.startedAt > attempt.startedAt,
  );
  const failures: string[] = [];
  const delay = post === undefined ? undefined : post.exchange.startedAt - attempt.startedAt;
  if (delay === undefined) failures.push("no HTTP request after it");
  else if (delay > FALLBACK_MS)
    failures.push(`first POST ${Math.round(delay)} ms after the attempt`);
  const retries = evidence.upgrades.filter(
    (upgrade) => post === undefined || upgrade.startedAt < post.exchange.startedAt,
  );
  if (retries.length > 1) failures.push(`${retries.length} upgrade attempts before it`);
  const output = `${evidence.run.result.stdout}\n${evidence.run.result.stderr}`;
  const reconnects = output.match(/reconnecting/gi)?.length ?? 0;
  if (reconnects > 0) failures.push(`${reconnects} "Reconnecting" messages`);
  return check(
    name,
    failures,
    `answered "${attempt.statusLine ?? "nothing"}"${attempt.answeredAt === undefined ? "" : ` in ${Math.round(attempt.answeredAt - attempt.startedAt)} ms`}, first POST ${Math.round(delay ?? 0)} ms after the attempt`,
  );
}

export function noServiceErrors(evidence: RunEvidence): PromiseResult {
  return check(
    "no error in the service log",
    evidence.serviceErrors.map((line) => line.slice(0, 160)),
    "none",
  );
}
