/**
 * Deep fuzz run of POST /compact (§10): every arbitrary of the property suite, in both modes,
 * against the in-process app, checking the same invariants. Prints one summary line and exits
 * non-zero on any failure (the failing case and its seed are printed first).
 *
 *   npm run fuzz                      # 100,000 cases
 *   npm run fuzz -- --cases 500000 --seed 7
 */
import { parseArgs } from "node:util";
import fc from "fast-check";
import {
  checkCompact,
  type Mode,
  type Subject,
  subject,
} from "../test/reliability/compact-invariants.js";
import {
  agentCorpusBodies,
  agentCorpusDir,
  FUZZ_FAMILIES,
  type FuzzCase,
  hasAgentCorpus,
  mutatedCorpus,
} from "../test/support/fuzz-arbitraries.js";

const { values } = parseArgs({
  options: {
    cases: { type: "string", default: "100000" },
    seed: { type: "string" },
  },
});
const total = Number(values.cases);
if (!Number.isInteger(total) || total < 1) {
  process.stderr.write(`--cases must be a positive whole number, got ${values.cases}\n`);
  process.exit(2);
}
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);

const unhandled: unknown[] = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));

const families: Array<readonly [string, fc.Arbitrary<FuzzCase>]> = FUZZ_FAMILIES.map(
  ({ id, arbitrary }) => [id, arbitrary] as const,
);
if (hasAgentCorpus) families.push(["mutated-corpus", mutatedCorpus(agentCorpusBodies())]);
else process.stderr.write(`mutated corpus skipped: no corpus at ${agentCorpusDir}\n`);

const modes: Mode[] = ["reversible", "clean"];
const runs = families.length * modes.length;
const started = performance.now();
let checked = 0;
const failures: string[] = [];

for (const [index, [name, arbitrary]] of families.entries()) {
  for (const [modeIndex, mode] of modes.entries()) {
    const share = Math.ceil((total - checked) / (runs - index * modes.length - modeIndex));
    const target: Subject = subject(mode);
    const result = await fc.check(
      fc.asyncProperty(arbitrary, (body) => checkCompact(target, body.bytes)),
      { numRuns: share, seed: seed + index * 2 + modeIndex, endOnFailure: true },
    );
    checked += result.numRuns;
    const line = `${name} ${mode}: ${result.numRuns} cases${result.failed ? " FAILED" : ""}`;
    process.stderr.write(`${line}\n`);
    if (result.failed) {
      failures.push(`${name} ${mode} (seed ${result.seed}, path ${result.counterexamplePath})`);
      process.stderr.write(`${fc.defaultReportMessage(result)}\n`);
    }
  }
}

const seconds = (performance.now() - started) / 1000;
const crashed = unhandled.length > 0 ? `, ${unhandled.length} unhandled rejections` : "";
process.stdout.write(
  `fuzz: ${checked} cases, ${failures.length} failed${crashed}, seed ${seed}, ${seconds.toFixed(1)} s` +
    `${failures.length > 0 ? ` — ${failures.join("; ")}` : ""}\n`,
);
process.exit(failures.length > 0 || unhandled.length > 0 ? 1 : 0);
