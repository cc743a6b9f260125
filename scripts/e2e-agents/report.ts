import { type PromiseResult, runPromises } from "./checks/promises.js";
import { analyseTurns } from "./checks/turn-analysis.js";
import type { ScenarioOutcome } from "./run-scenario.js";
import { renderRun } from "./table.js";
import { buildTurns } from "./turns.js";

/**
 * A scenario's report: its requests analysed together (a resumed fork's first request is
 * compared with the run it resumes), then one table per run with that run's promises.
 */

export interface ScenarioReport {
  readonly text: string;
  readonly promises: readonly (PromiseResult & { readonly run: string })[];
}

export function reportScenario(outcome: ScenarioOutcome): ScenarioReport {
  const turns = buildTurns(outcome.exchanges, outcome.upstream);
  const analyses = analyseTurns(turns);
  const sections: string[] = [];
  const promises: (PromiseResult & { run: string })[] = [];
  for (const run of outcome.runs) {
    const label = run.spec.label;
    const runTurns = turns.filter((turn) => turn.exchange.run === label);
    const runAnalyses = analyses.filter((analysis) => analysis.turn.exchange.run === label);
    const results = runPromises({
      scenario: outcome.scenario,
      run,
      turns: runTurns,
      analyses: runAnalyses,
      upgrades: outcome.upgrades.filter((upgrade) => upgrade.run === label),
      serviceErrors: outcome.serviceErrors,
    });
    promises.push(...results.map((result) => ({ ...result, run: label })));
    sections.push(
      renderRun({
        label,
        title: outcome.scenario.title,
        exitCode: run.result.exitCode,
        durationMs: run.result.durationMs,
        turns: runTurns,
        analyses: runAnalyses,
        promises: results,
      }),
    );
  }
  if (outcome.serviceMetrics.length > 0) {
    sections.push(
      `service metrics of ${outcome.scenario.name}:\n${outcome.serviceMetrics.map((line) => `  ${line}`).join("\n")}`,
    );
  }
  return { text: sections.join("\n\n"), promises };
}
