import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { BenchPricing, Mode } from "./bench-app.js";
import type { BenchBody } from "./bench-body.js";
import { generateCorpus } from "./corpus/generate.js";
import { type CostResult, measureCost, replaySessions, responsesSessions } from "./cost.js";
import { SCHEDULES, type Schedule } from "./cost-replay.js";
import { loadCorpus } from "./load-corpus.js";
import { type ModeResult, measureMode } from "./measure-mode.js";
import { BodyReader } from "./needed-facts/body-reading.js";
import { PromptTokens } from "./prompt-tokens.js";
import { renderCost, renderReport } from "./report-table.js";

const USAGE = `usage: npm run bench -- [options]
  --corpus DIR      folder of {provider, body} JSON files (default: the generated corpus)
  --sessions N      sessions of the generated corpus (default 6)
  --seed N          seed of the generated corpus (default 1)
  --preset NAME     pipeline preset of the latency passes (default: the configured default, agent)
  --presets LIST    presets of the session cost replay (default: the preset above)
  --pricings LIST   cache.pricing values of the session cost replay (default: auto)
  --no-latency      the session cost replay only
  --modes LIST      reversible,clean (default both)
  --schedules LIST  cache schedules of the session cost replay: warm,cold-every-10,cold (default all)
  --cold-passes N   cold passes over fresh services (default 3)
  --warm-runs N     warm requests per body (default 5)
  --floor-runs N    parse+stringify runs per body (default 9)
  --json FILE       also write the results as JSON
  --verbose         one row per body`;

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`--${name} must be a positive integer`);
  return parsed;
}

const PRICINGS = ["auto", "anthropic", "openai", "vllm", "prefill-only"] as const;

function pricingOf(name: string): BenchPricing {
  const known = PRICINGS.find((pricing) => pricing === name);
  if (known === undefined) throw new Error(`--pricings: unknown cache.pricing ${name}`);
  return known;
}

function scheduleOf(name: string): Schedule {
  const known = SCHEDULES.find((schedule) => schedule === name);
  if (known === undefined) throw new Error(`--schedules: unknown schedule ${name}`);
  return known;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: "string" },
      sessions: { type: "string" },
      seed: { type: "string" },
      preset: { type: "string" },
      presets: { type: "string" },
      pricings: { type: "string" },
      "no-latency": { type: "boolean", default: false },
      modes: { type: "string" },
      schedules: { type: "string" },
      "cold-passes": { type: "string" },
      "warm-runs": { type: "string" },
      "floor-runs": { type: "string" },
      json: { type: "string" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const modes = (values.modes ?? "reversible,clean").split(",").map((mode) => mode.trim());
  for (const mode of modes) {
    if (mode !== "reversible" && mode !== "clean") throw new Error(`unknown mode ${mode}`);
  }
  let bodies: BenchBody[];
  let source: string;
  if (values.corpus) {
    source = resolve(values.corpus);
    bodies = loadCorpus(source);
  } else {
    const sessions = integer(values.sessions, 6, "sessions");
    const seed = integer(values.seed, 1, "seed");
    source = `generated (sessions ${sessions}, seed ${seed})`;
    bodies = generateCorpus({ sessions, seed }).map((entry) => ({
      name: entry.name,
      provider: entry.provider,
      session: `g${entry.session}/${entry.provider}`,
      body: entry.body,
    }));
  }
  const bytes = bodies.reduce((sum, item) => sum + Buffer.byteLength(item.body), 0);
  console.log(`corpus: ${source}: ${bodies.length} bodies, ${(bytes / 1024).toFixed(0)} KiB`);

  const schedules = values.schedules?.split(",").map((name) => scheduleOf(name.trim()));
  const sessions = replaySessions(bodies);
  const presets = values.presets?.split(",").map((name) => name.trim()) ?? [values.preset];
  const pricings = (values.pricings?.split(",").map((name) => name.trim()) ?? [undefined]).map(
    (name) => (name === undefined ? undefined : pricingOf(name)),
  );
  // The chat sessions again in the Responses shape, reported beside the corpus as captured.
  const replays = [
    { sessionsOf: "the corpus as captured", sessions },
    { sessionsOf: "its chat sessions in Responses form", sessions: responsesSessions(sessions) },
  ].filter((replay) => replay.sessions.length > 0);
  const costs: CostResult[] = [];
  const prompts = new PromptTokens();
  const reader = new BodyReader();
  for (const mode of modes as Mode[]) {
    for (const preset of presets) {
      for (const pricing of pricings) {
        for (const replay of replays) {
          costs.push(
            await measureCost(
              replay.sessions,
              { mode, preset, pricing, sessionsOf: replay.sessionsOf, schedules },
              prompts,
              reader,
            ),
          );
        }
      }
    }
  }
  console.log(renderCost(costs));
  const results: ModeResult[] = [];
  for (const mode of values["no-latency"] ? [] : (modes as Mode[])) {
    results.push(
      await measureMode(bodies, {
        mode,
        preset: values.preset,
        coldPasses: integer(values["cold-passes"], 3, "cold-passes"),
        warmRuns: integer(values["warm-runs"], 5, "warm-runs"),
        floorRuns: integer(values["floor-runs"], 9, "floor-runs"),
      }),
    );
  }
  if (results.length > 0) console.log(renderReport(results, values.verbose));
  if (values.json) {
    const report = {
      corpus: source,
      bodies: bodies.length,
      bytes,
      node: process.version,
      costs,
      results,
    };
    writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwrote ${values.json}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  console.error(USAGE);
  process.exitCode = 1;
});
