import type { PromiseResult } from "./checks/promises.js";
import { announcedChanges, type TurnAnalysis, unannouncedChanges } from "./checks/turn-analysis.js";
import { cacheTreatment, type Turn } from "./turns.js";

/**
 * The table printed for each run: one row per request the CLI made, the run's totals, and the
 * verdict of each promise with its evidence.
 */

export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join(
    "\n",
  );
}

/** `-74.2 %`, or `n/a` with nothing to compare. */
export function saving(before: number, after: number): string {
  if (before === 0) return "n/a";
  const share = ((after - before) / before) * 100;
  return `${share <= 0 ? "−" : "+"}${Math.abs(share).toFixed(1)} %`;
}

export interface RunSummary {
  readonly label: string;
  readonly title: string;
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly turns: readonly Turn[];
  readonly analyses: readonly TurnAnalysis[];
  readonly promises: readonly PromiseResult[];
}

const ROW_HEADER = [
  "#",
  "exch",
  "request",
  "items",
  "expand tool",
  "markers",
  "outputs m/u/r",
  "cache",
  "rounds",
  "tokens client→upstream",
  "sent changed u/a/cc",
];

function row(turn: Turn, analysis: TurnAnalysis | undefined): string[] {
  const route =
    turn.route === "other" ? `${turn.exchange.method} ${turn.exchange.url}` : turn.route;
  const request = turn.kind === "none" || turn.kind === "turn" ? route : `${route} ${turn.kind}`;
  if (analysis === undefined) {
    return [
      turn.index > 0 ? String(turn.index) : "",
      turn.exchange.id,
      `${request} → ${turn.exchange.status}`,
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
    ];
  }
  const fates = { marked: 0, unmarked: 0, repacked: 0 };
  for (const verdict of analysis.outputs) if (verdict.fate !== "unchanged") fates[verdict.fate]++;
  const changes = analysis.prefix
    ? `${unannouncedChanges(analysis)}/${announcedChanges(analysis)}/${analysis.prefix.cacheControlMoves}`
    : "—";
  return [
    String(turn.index),
    turn.exchange.id,
    turn.exchange.status === 200 ? request : `${request} → ${turn.exchange.status}`,
    String(turn.client?.items.length ?? 0),
    analysis.expandOffered ? "yes" : "no",
    String(analysis.markerIds.length),
    `${fates.marked}/${fates.unmarked}/${fates.repacked}`,
    cacheTreatment(turn),
    String(Math.max(0, turn.rounds.length - 1)),
    `${analysis.clientTokens}→${analysis.forwardedTokens}`,
    changes,
  ];
}

export function renderRun(summary: RunSummary): string {
  const byTurn = new Map(summary.analyses.map((analysis) => [analysis.turn, analysis]));
  const rows = summary.turns.map((turn) => row(turn, byTurn.get(turn)));
  const session = summary.analyses.filter((analysis) => analysis.turn.kind === "turn");
  const clientTokens = session.reduce((sum, analysis) => sum + analysis.clientTokens, 0);
  const forwardedTokens = session.reduce((sum, analysis) => sum + analysis.forwardedTokens, 0);
  const offered = session.find((analysis) => analysis.expandOffered);
  const markers = new Set(session.flatMap((analysis) => analysis.markerIds));
  const expandRounds = summary.turns.reduce(
    (sum, turn) => sum + Math.max(0, turn.rounds.length - 1),
    0,
  );
  const upstream = summary.turns.reduce((sum, turn) => sum + turn.rounds.length, 0);
  const count = (pick: (analysis: TurnAnalysis) => number) =>
    session.reduce((sum, analysis) => sum + pick(analysis), 0);
  const totals = [
    `turns ${session.length}, upstream requests ${upstream}, expand tool from ${offered ? `#${offered.turn.index}` : "never"}, markers ${markers.size}, expand rounds ${expandRounds}`,
    `already-sent items changed on later turns: ${count(unannouncedChanges)} unannounced, ${count(announcedChanges)} announced (cold), ${count((analysis) => analysis.prefix?.cacheControlMoves ?? 0)} cache_control moves by the client`,
    `message tokens over the session: ${clientTokens} client → ${forwardedTokens} upstream (${saving(clientTokens, forwardedTokens)})`,
  ];
  const verdicts = summary.promises.map(
    (result) => `  ${result.verdict.padEnd(4)}  ${result.name}: ${result.evidence}`,
  );
  return [
    `== ${summary.label}: ${summary.title}`,
    `exit ${summary.exitCode ?? "none"}, ${(summary.durationMs / 1000).toFixed(1)} s`,
    renderTable(ROW_HEADER, rows),
    ...totals,
    "promises:",
    ...verdicts,
  ].join("\n");
}
