import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  claudeCommand,
  codexCommand,
  codexLoginCommand,
  FORK_PROMPT,
  SESSION_PROMPT,
} from "./agents.js";
import type { InstalledClis } from "./cli-cache.js";
import { type CliCommand, type CliResult, runCli } from "./cli-run.js";
import { ScriptedModel } from "./model/server.js";
import type { Exchange, UpgradeAttempt, UpstreamRequest } from "./records.js";
import type { RunSpec, Scenario } from "./scenarios.js";
import { writeScratchRepo } from "./scratch-repo.js";
import { startService } from "./service.js";
import { RecordingTap } from "./tap.js";

/**
 * One scenario end to end: a scratch repository, the scripted model, the service started with
 * the scenario's config, the recording tap in front of it, then each CLI run in turn. Everything
 * it records is written to the scenario's folder for inspection.
 */

export interface RunOutcome {
  readonly spec: RunSpec;
  readonly result: CliResult;
  /** Claude Code's session id (from its JSON result), to resume. */
  readonly sessionId: string | undefined;
}

export interface ScenarioOutcome {
  readonly scenario: Scenario;
  readonly runs: readonly RunOutcome[];
  readonly exchanges: readonly Exchange[];
  readonly upstream: readonly UpstreamRequest[];
  readonly upgrades: readonly UpgradeAttempt[];
  readonly serviceErrors: readonly string[];
  /** What the service counted of its own work (compaction jobs and how they ended, …). */
  readonly serviceMetrics: readonly string[];
  readonly dir: string;
}

/** The service's metrics a report shows: how compactions ended, markers degraded, expand rounds. */
export const REPORTED_METRICS = [
  "cg_compaction_jobs_total",
  "cg_compact_passthrough_total",
  "cg_markers_degraded_total",
  "cg_expand_rounds_total",
  "cg_expand_bails_total",
];

export interface ScenarioContext {
  readonly clis: InstalledClis;
  readonly dir: string;
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

function sessionIdOf(stdout: string): string | undefined {
  try {
    const parsed = JSON.parse(stdout) as { session_id?: unknown };
    return typeof parsed.session_id === "string" ? parsed.session_id : undefined;
  } catch {
    return undefined;
  }
}

export async function runScenario(
  scenario: Scenario,
  context: ScenarioContext,
): Promise<ScenarioOutcome> {
  const dir = join(context.dir, scenario.name);
  const repo = join(dir, "repo");
  mkdirSync(repo, { recursive: true });
  writeScratchRepo(repo);
  const model = new ScriptedModel({ repoDir: repo, now: context.now });
  const modelUrl = await model.listen();
  const service = await startService({
    config: scenario.config,
    modelUrl,
    logFile: join(dir, "service.log"),
  });
  const tap = new RecordingTap({ host: "127.0.0.1", port: service.port }, context.now);
  const tapUrl = await tap.listen();
  const runs: RunOutcome[] = [];
  let serviceMetrics: string[] = [];
  try {
    for (const spec of scenario.runs) {
      const forked =
        spec.cli === "claude" && spec.forkOf !== undefined
          ? runs.find((run) => run.spec.label === spec.forkOf)
          : undefined;
      const home = join(dir, `home-${forked?.spec.label ?? spec.label}`);
      mkdirSync(join(home, ".codex"), { recursive: true });
      const command: CliCommand =
        spec.cli === "claude"
          ? claudeCommand({
              binary: context.clis.claude,
              baseUrl: tapUrl,
              home,
              repo,
              prompt: forked === undefined ? SESSION_PROMPT : FORK_PROMPT,
              ...(forked?.sessionId === undefined ? {} : { forkOf: forked.sessionId }),
              ...(spec.env === undefined ? {} : { env: spec.env }),
            })
          : codexCommand({
              binary: context.clis.codex,
              baseUrl: tapUrl,
              home,
              repo,
              prompt: SESSION_PROMPT,
              provider: spec.provider,
              ...(spec.config === undefined ? {} : { config: spec.config }),
            });
      if (spec.cli === "codex" && spec.provider === "builtin") {
        await runCli(codexLoginCommand({ binary: context.clis.codex, home, repo }), {
          timeoutMs: 60_000,
          logPrefix: join(dir, `${spec.label}-login`),
          now: context.now,
        });
      }
      tap.run = spec.label;
      context.log(`  ${spec.label}: ${command.binary.split("/").at(-1)} ${command.args.join(" ")}`);
      const result = await runCli(command, {
        timeoutMs: context.timeoutMs,
        logPrefix: join(dir, spec.label),
        now: context.now,
      });
      runs.push({
        spec,
        result,
        sessionId: spec.cli === "claude" ? sessionIdOf(result.stdout) : undefined,
      });
    }
    serviceMetrics = await service.metrics(REPORTED_METRICS);
  } finally {
    await service.stop();
    await tap.close();
    await model.close();
  }
  const outcome: ScenarioOutcome = {
    scenario,
    runs,
    exchanges: tap.exchanges,
    upstream: model.requests,
    upgrades: tap.upgrades,
    serviceErrors: service.errorLines,
    serviceMetrics,
    dir,
  };
  writeFileSync(join(dir, RECORDS_FILE), JSON.stringify(outcome, null, 1));
  return outcome;
}

/** Where a scenario's outcome is kept, to report on again with `--from-records`. */
export const RECORDS_FILE = "records.json";

/** A scenario's outcome as an earlier run wrote it; undefined when it has none. */
export function readOutcome(dir: string, scenario: Scenario): ScenarioOutcome | undefined {
  const file = join(dir, scenario.name, RECORDS_FILE);
  if (!existsSync(file)) return undefined;
  const outcome = JSON.parse(readFileSync(file, "utf8")) as ScenarioOutcome;
  return { ...outcome, serviceMetrics: outcome.serviceMetrics ?? [], scenario };
}
