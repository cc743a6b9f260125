import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureClis } from "./cli-cache.js";
import { killRunningClis } from "./cli-run.js";
import { reportScenario } from "./report.js";
import { readOutcome, runScenario } from "./run-scenario.js";
import { SCENARIOS } from "./scenarios.js";
import { buildService, killRunningServices, PROJECT_ROOT } from "./service.js";

const USAGE = `npm run e2e:agents [-- --only NAME[,NAME…]] [--timeout SECONDS] [--list] [--from-records]

Runs Claude Code and Codex through the service against a scripted model on loopback and
checks the promises of SPEC §4a "Live sessions", §2 and §8. Installs the CLIs on first use
into $CG_E2E_CACHE (default .cache/e2e-agents; about 650 MB, needs the npm registry).
--from-records reports again on the records the last run left, without running anything.
Exits 1 when a promise breaks.
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      timeout: { type: "string", default: "600" },
      list: { type: "boolean", default: false },
      "from-records": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.list) {
    for (const scenario of SCENARIOS)
      process.stdout.write(`${scenario.name.padEnd(24)}${scenario.title}\n`);
    return;
  }
  const only = values.only?.split(",").map((name) => name.trim());
  const unknown =
    only?.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name)) ?? [];
  if (unknown.length > 0)
    throw new Error(`unknown scenario ${unknown.join(", ")} (--list names them)`);
  const chosen = SCENARIOS.filter((scenario) => only === undefined || only.includes(scenario.name));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const cache = process.env.CG_E2E_CACHE ?? join(PROJECT_ROOT, ".cache", "e2e-agents");
  const dir = join(cache, "runs");
  const replay = values["from-records"];
  const clis = replay ? undefined : ensureClis(join(cache, "cli"), log);
  if (clis !== undefined) {
    log("building the service (npm run build)");
    buildService();
    // Each scenario starts from an empty folder; others' records stay for --from-records.
    for (const scenario of chosen)
      rmSync(join(dir, scenario.name), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const origin = performance.now();
  const now = () => performance.now() - origin;
  const broken: { run: string; name: string }[] = [];
  for (const scenario of chosen) {
    log(`scenario ${scenario.name}: ${scenario.title}`);
    const outcome =
      clis === undefined
        ? readOutcome(dir, scenario)
        : await runScenario(scenario, {
            clis,
            dir,
            timeoutMs: Number(values.timeout) * 1000,
            now,
            log,
          });
    if (outcome === undefined) {
      log(`  no records of ${scenario.name} in ${dir}: run it first`);
      continue;
    }
    const report = reportScenario(outcome);
    process.stdout.write(`${report.text}\n\n`);
    broken.push(...report.promises.filter((result) => result.verdict === "FAIL"));
  }
  process.stdout.write(
    broken.length === 0
      ? "every promise kept\n"
      : `${broken.length} promise(s) broken:\n${broken.map((result) => `  ${result.run}: ${result.name}`).join("\n")}\n`,
  );
  log(`records and logs: ${dir}`);
  if (broken.length > 0) process.exitCode = 1;
}

// An interrupted run ends what it started: the CLIs (in process groups of their own) and the
// service.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    killRunningClis();
    killRunningServices();
    process.exit(130);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`e2e:agents: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
