/**
 * A long session's warm turns (§4a, §10): does the work of a turn follow its new bytes, or the
 * whole history? One generated agent session of 300 turns (each turn two or more tool calls
 * answered together, so the body grows past 2 MB) is sent turn by turn to a Compactor, in
 * process, on a clock moved 20 s a turn (well within the cache's lifetime: every turn is warm
 * unless the service breaks the prefix on purpose). Around turns 50, 150 and 300 each warm turn
 * is timed, and beside it one JSON.parse of the same body: the time beyond parsing is what the
 * compactor adds, and it should not grow with the history. Times are CPU milliseconds, medians
 * over the warm turns of a window of five turns ending at each checkpoint, over `--replays`
 * replays of the whole session.
 *
 *   npm run bench:long-session -- [--modes reversible,clean] [--shapes anthropic,openai]
 *     [--replays N] [--seed N] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Compactor } from "../src/compact/compactor.js";
import { components } from "../src/components/registry.js";
import { parseConfig } from "../src/config/load.js";
import { createStore } from "../src/store/create.js";
import { utf8Text } from "../src/text/utf8.js";
import type { Provider } from "../src/wire/types.js";
import { BENCH_HASH_KEY, type Mode, modeConfig } from "./bench-app.js";
import { makeProject } from "./corpus/project.js";
import { Random } from "./corpus/random.js";
import { anthropicBody, openaiBody } from "./corpus/render.js";
import { type ScriptStep, writeScript } from "./corpus/script.js";
import { median, startClock } from "./timing.js";
import { replayTurns } from "./turns.js";

const TURNS = 300;
const CHECKPOINTS = [50, 150, 300] as const;
const WINDOW = 5;
const TURN_SPACING_MS = 20_000;

/**
 * The session's turns in `provider`'s shape: two scripts of one project interleaved step by
 * step, so each assistant turn makes the calls of both (agents call tools in parallel), and
 * the last turn's body is past 2 MB.
 */
export function longSession(provider: Provider, seed: number): string[] {
  const random = new Random(seed);
  const project = makeProject(random.fork());
  const first = writeScript(project, random.fork(), TURNS);
  const second = writeScript(project, random.fork(), TURNS);
  const steps: ScriptStep[] = first.map((step, index) => ({
    text: step.text,
    calls: [...step.calls, ...(second[index]?.calls ?? [])],
  }));
  const frame = {
    system: "You are a coding agent working in a repository. Use the Read and Bash tools.",
    goal: `Make the test suite of ${project.name} pass again, then explain the fix.`,
    indent: 0,
    bigSeed: `1${String(random.int(0, 999_999_999)).padStart(9, "0")}`,
    userId: `user_${random.hex(32)}_session_${random.hex(8)}`,
  };
  const body = provider === "anthropic" ? anthropicBody(frame, steps) : openaiBody(frame, steps);
  return replayTurns(provider, body);
}

interface Checkpoint {
  readonly turn: number;
  readonly bytes: number;
  /** Warm turns timed in the windows, over every replay. */
  readonly warmTurns: number;
  readonly parseMs: number;
  readonly compactMs: number;
  readonly beyondParseMs: number;
}

async function measure(
  mode: Mode,
  turns: readonly string[],
  replays: number,
): Promise<Checkpoint[]> {
  const samples = new Map<number, { parse: number[]; compact: number[]; beyond: number[] }>();
  for (const turn of CHECKPOINTS) samples.set(turn, { parse: [], compact: [], beyond: [] });
  const windowOf = (turn: number) =>
    CHECKPOINTS.find((checkpoint) => turn <= checkpoint && turn > checkpoint - WINDOW);
  for (let replay = 0; replay < replays; replay++) {
    const config = parseConfig(modeConfig(mode, undefined));
    let now = 1_000_000;
    const compactor = new Compactor({
      config,
      store: createStore(config.store),
      registry: components,
      hashKey: BENCH_HASH_KEY,
      clock: () => now,
    });
    for (const [index, sent] of turns.entries()) {
      const turn = index + 1;
      // Each body as the service has it: decoded from its bytes, one flat string. (A body built
      // by concatenation is a rope, flattened by whatever reads it first: a copy the service
      // never makes, which would be counted as the compactor's.)
      const text = utf8Text(Buffer.from(sent)) ?? sent;
      const stop = startClock();
      const result = await compactor.compact(text, { session: `long-${mode}` });
      const compact = stop().cpuMs;
      now += TURN_SPACING_MS;
      const checkpoint = windowOf(turn);
      if (checkpoint === undefined || result.cache.state !== "warm") continue;
      const parsing = startClock();
      JSON.parse(text);
      const parse = parsing().cpuMs;
      const figures = samples.get(checkpoint);
      figures?.parse.push(parse);
      figures?.compact.push(compact);
      figures?.beyond.push(compact - parse);
    }
  }
  return CHECKPOINTS.map((turn) => {
    const figures = samples.get(turn) ?? { parse: [], compact: [], beyond: [] };
    const middle = (values: number[]) => (values.length === 0 ? Number.NaN : median(values));
    return {
      turn,
      bytes: Buffer.byteLength(turns[turn - 1] ?? ""),
      warmTurns: figures.compact.length,
      parseMs: middle(figures.parse),
      compactMs: middle(figures.compact),
      beyondParseMs: middle(figures.beyond),
    };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      modes: { type: "string", default: "reversible,clean" },
      shapes: { type: "string", default: "anthropic,openai" },
      replays: { type: "string", default: "3" },
      seed: { type: "string", default: "1" },
      json: { type: "string" },
    },
  });
  const modes = values.modes.split(",").map((mode) => mode.trim());
  const shapes = values.shapes.split(",").map((shape) => shape.trim());
  const replays = Number(values.replays);
  const seed = Number(values.seed);
  if (!Number.isInteger(replays) || replays < 1) throw new Error("--replays: a positive integer");
  if (!Number.isInteger(seed)) throw new Error("--seed: an integer");
  const lines = [
    "| mode | shape | turn | body KiB | warm turns timed | JSON.parse ms | compact ms | beyond parsing ms |",
    "|---|---|---|---|---|---|---|---|",
  ];
  const results: Array<{ mode: string; shape: string; checkpoints: Checkpoint[] }> = [];
  for (const shape of shapes) {
    if (shape !== "anthropic" && shape !== "openai") throw new Error(`unknown shape ${shape}`);
    const turns = longSession(shape, seed);
    for (const mode of modes) {
      if (mode !== "reversible" && mode !== "clean") throw new Error(`unknown mode ${mode}`);
      const checkpoints = await measure(mode, turns, replays);
      results.push({ mode, shape, checkpoints });
      for (const point of checkpoints) {
        lines.push(
          `| ${mode} | ${shape} | ${point.turn} | ${(point.bytes / 1024).toFixed(0)} | ` +
            `${point.warmTurns} | ${point.parseMs.toFixed(2)} | ${point.compactMs.toFixed(2)} | ` +
            `${point.beyondParseMs.toFixed(2)} |`,
        );
      }
    }
  }
  console.log(lines.join("\n"));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
}

// Run as a script; imported, it only lends its session (longSession).
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
