import { SizedMemo } from "../pipeline/sized-memo.js";
import type { ToolOutput } from "../wire/types.js";
import { normalise } from "./cmdfilter/command.js";
import { tokenize } from "./cmdfilter/shell-words.js";

/**
 * Recognising test and build runs among tool outputs, and whether a run failed.
 *
 * A run is recognised from its call's shell command (`input.command`, `input.cmd` or
 * `input.script`; a string or an argv array), else from a `$ command` first line of the output,
 * else — only when no command is known — from a summary line only that runner prints (pytest's
 * `… in 0.12s`, jest's `Tests: … total`, cargo's `test result:`, …), so `cat old-run.log` is not a
 * run. A command is split on `&&`, `||`, `;`, `|` and newlines; each
 * segment, after leading `VAR=value`, `sudo`, `time`, `timeout N`, `env` and `nice`, must start
 * with a known runner (so `echo pytest` or `git commit -m "make it"` are not runs).
 *
 * Runs are grouped into families (pytest, js test, go test, cargo build, make, …), and within a
 * family by target: the runner's own arguments — the tests or paths it names, `-k`/`-m`
 * selections, the `cd` directory it ran in — with output flags left out (`-q`, `-v`, `-s`, `-x`,
 * `--tb=…`, `--color…`, `-rA`, `--no-header`, `-p no:cacheprovider`, `--durations=N`, `-n N`,
 * `--reporter=…`, …, see `OUTPUT_FLAGS`). Only a later run of the same target says what became of
 * an earlier one: a whole-file `pytest tests/test_a.py` is not superseded by a later
 * `pytest tests/test_a.py::test_x`, nor a failed pytest run by a later `make` run. A run known
 * only by its output's signature has its family as its target.
 *
 * Failure is decided conservatively: the run failed only when the tool reported an error
 * (`is_error`) or the output carries a runner's explicit failure signature — a pytest summary
 * counting failures or errors, `FAILED (failures=…)`, jest/vitest `… N failed`, `N failing`,
 * `--- FAIL`/`FAIL` lines, `test result: FAILED.`, rustc `error[E…]:`, `error TS…:`,
 * `make: ***`, `BUILD FAILURE`/`BUILD FAILED`, `npm ERR!`, `Command failed with exit code N`.
 * Anything else — including a run whose outcome cannot be read — counts as not failed, and so is
 * never dropped.
 */
export interface TestRun {
  readonly family: string;
  /** What the run ran: runs of one target supersede each other. */
  readonly target: string;
  readonly failed: boolean;
}

const PYTHON = String.raw`python[\d.]*\s+`;
const RUNNERS: ReadonlyArray<readonly [RegExp, string]> = [
  [new RegExp(String.raw`^(?:${PYTHON}-m\s+)?(?:pytest|py\.test)\b`), "pytest"],
  [/^(?:tox|nox)\b/, "tox"],
  [new RegExp(String.raw`^${PYTHON}(?:-m\s+unittest\b|\S*manage\.py\s+test\b)`), "unittest"],
  [new RegExp(String.raw`^(?:${PYTHON})?\S*runtests\.py\b`), "unittest"],
  [/^(?:npx\s+|bunx\s+|(?:pnpm|yarn)\s+(?:exec\s+|dlx\s+)?)?(?:jest|vitest|mocha)\b/, "js test"],
  [/^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b/, "js test"],
  [/^(?:npx\s+|(?:pnpm|yarn)\s+(?:exec\s+)?)?tsc\b/, "js build"],
  [/^(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build\b/, "js build"],
  [/^go\s+(?:test|vet)\b/, "go test"],
  [/^go\s+build\b/, "go build"],
  [/^cargo\s+(?:test|nextest)\b/, "cargo test"],
  [/^cargo\s+(?:build|check|clippy)\b/, "cargo build"],
  [/^(?:g?make|ninja)\b|^cmake\s+--build\b/, "make"],
  [/^(?:\.\/)?mvnw?\b/, "maven"],
  [/^(?:\.\/)?gradlew?\b/, "gradle"],
  [/^dotnet\s+(?:test|build)\b/, "dotnet"],
  [/^(?:bundle\s+exec\s+)?(?:rspec|rake\s+test)\b/, "ruby test"],
  [/^(?:\S*\/)?phpunit\b/, "phpunit"],
  [/^(?:mix|deno|swift)\s+test\b|^ctest\b/, "test"],
];

const PREFIX = /^(?:\w+=\S*\s+|sudo\s+|time\s+|env\s+|nice\s+|timeout\s+(?:-\S+\s+)*\S+\s+)+/;

/**
 * Summary lines only one runner prints, for outputs whose command is unknown. A line's indent is
 * whitespace that ends no line (`[^\S\n\r\u2028\u2029]*`): with `\s*` every line start would read
 * on across all the blank lines after it. A summary after blank lines is found all the same, at
 * the start of its own line.
 */
const SIGNATURES: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^=*[^\S\n\r\u2028\u2029]*(?:\d+ \w+(?: \w+)?, )*\d+ (?:passed|failed|errors?)\b.* in [\d.]+s\b.*$/m,
    "pytest",
  ],
  [/^Tests:\s+(?:\d+ \w+, )*\d+ total$/m, "js test"],
  [/^[^\S\n\r\u2028\u2029]*Test Files\s+.*\(\d+\)$/m, "js test"],
  [/^(?:ok|FAIL)\s+\S+\s+[\d.]+s$/m, "go test"],
  [/^test result: (?:ok|FAILED)\./m, "cargo test"],
  [/^\[INFO\] BUILD (?:SUCCESS|FAILURE)$/m, "maven"],
  [/^BUILD (?:SUCCESSFUL|FAILED) in \S+$/m, "gradle"],
];

/** Failure signatures, indented as the summary lines above. */
const FAILURES: readonly RegExp[] = [
  /^=*[^\S\n\r\u2028\u2029]*(?:\d+ \w+(?: \w+)?, )*[1-9]\d* (?:failed|errors?)\b.* in [\d.]+s\b/m,
  /^(?:!+ )?Interrupted: [1-9]\d* errors? during collection/m,
  /^FAILED \((?:failures|errors)=\d+/m,
  /^[^\S\n\r\u2028\u2029]*(?:Tests|Test Suites|Test Files):?\s+(?:\d+ \w+, )*[1-9]\d* failed\b/m,
  /^[^\S\n\r\u2028\u2029]*[1-9]\d* failing$/m,
  /^[^\S\n\r\u2028\u2029]*(?:--- )?FAIL\b/m,
  /^test result: FAILED\./m,
  /^error(?:\[E\d{4}\])?: /m,
  /\berror TS\d+:/,
  /^g?make(?:\[\d+\])?: \*\*\* /m,
  /BUILD FAILURE|^BUILD FAILED\b|^FAILURE: Build failed|^Build FAILED\./m,
  /^npm (?:ERR!|error) /m,
  /Command failed with exit code [1-9]\d*/,
  /^\d+ examples?, [1-9]\d* failures?/m,
  /^FAILURES!$/m,
];

/** Detections by output text, then by command; agents re-send the same outputs every turn. */
const detected = new SizedMemo<Map<string, TestRun | null>>(
  16 * 1024 * 1024,
  (text, byCommand) => text.length + 64 * byCommand.size,
);

/**
 * Runs by command line: many outputs may answer one call, and its command may be long, so a
 * command is read once, not once an output.
 */
const runsByCommand = new SizedMemo<{ family: string; target: string } | null>(
  4 * 1024 * 1024,
  (command) => command.length + 64,
);

/**
 * The test/build run this output records, or undefined when it is not one. A call that ran no
 * shell command (a file read, an API call) is never a run; output signatures are read only when
 * the call is unknown.
 */
export function detectRun(output: ToolOutput): TestRun | undefined {
  const command = commandOf(output.call?.input) ?? promptCommand(output.text);
  if (command === undefined && output.call !== undefined) return undefined;
  const key = `${output.isError ? "!" : ""}${command ?? ""}`;
  const known = detected.get(output.text)?.get(key);
  if (known !== undefined) return known ?? undefined;
  const found = command === undefined ? signatureRun(output.text) : knownRun(command);
  const run = found === undefined ? undefined : withOutcome(found, output);
  // Added in place, the text's detections counted again at their new size.
  const added = detected.update(output.text, (byCommand) => byCommand.set(key, run ?? null));
  if (!added) detected.set(output.text, new Map([[key, run ?? null]]));
  return run;
}

/** commandRun, remembered by command line. */
function knownRun(command: string): { family: string; target: string } | undefined {
  const known = runsByCommand.get(command);
  if (known !== undefined) return known ?? undefined;
  const found = commandRun(command);
  runsByCommand.set(command, found ?? null);
  return found;
}

/**
 * `found` with whether the run failed, read from the output only when asked: a run that is the
 * last of its target is never asked, and reading a multi-megabyte log for every failure pattern
 * is a pass over it per pattern.
 */
function withOutcome(found: { family: string; target: string }, output: ToolOutput): TestRun {
  let failed: boolean | undefined;
  return {
    ...found,
    get failed() {
      failed ??= output.isError || runFailed(output.text);
      return failed;
    },
  };
}

export function runFailed(text: string): boolean {
  return FAILURES.some((pattern) => pattern.test(text));
}

export function commandFamily(command: string): string | undefined {
  return commandRun(command)?.family;
}

/** The family and target of the first runner a command line starts. */
export function commandRun(command: string): { family: string; target: string } | undefined {
  let directory = "";
  for (const segment of command.split(/&&|\|\||[;|\n]/)) {
    const program = segment.trim().replace(PREFIX, "");
    const cd = /^cd\s+(\S+)/.exec(program);
    if (cd) directory = cd[1] as string;
    const runner = RUNNERS.find(([pattern]) => pattern.test(program));
    if (runner === undefined) continue;
    const family = runner[1];
    return { family, target: [family, directory, ...targetWords(program)].join("\u0000") };
  }
  return undefined;
}

function signatureRun(text: string): { family: string; target: string } | undefined {
  const family = SIGNATURES.find(([pattern]) => pattern.test(text))?.[1];
  return family === undefined ? undefined : { family, target: family };
}

/** Flags that change how a run reports, not what it runs. */
const OUTPUT_FLAGS =
  /^(?:-[qvsxl]+|--(?:quiet|verbose|silent|exitfirst|showlocals|no-header|no-summary|disable-warnings|full-trace|ci|color|colors|no-color|no-colors|json|verbosity|runInBand|passWithNoTests|no-cov)|-r[a-zA-Z]+|--(?:tb|color|colors|capture|durations|maxfail|reporter|junitxml|junit-xml|html|cov|cov-report|verbosity|log-level|log-cli-level|outputFile|watch|parallel)=.*|-p\s*no:\S+|-count=\d+)$/;
/** Output flags whose value is the next word. */
const VALUED_OUTPUT_FLAGS = new Set([
  "--tb",
  "-p",
  "-n",
  "--numprocesses",
  "--durations",
  "--maxfail",
  "--reporter",
  "--color",
  "--cov-report",
  "--verbosity",
  "--parallel",
  "-count",
]);

/** A runner command's words that say what it runs: the program unwrapped, output flags gone. */
function targetWords(program: string): string[] {
  const words = normalise(tokenize(program).flat(2));
  const kept: string[] = [];
  for (let at = 1; at < words.length; at++) {
    const word = words[at] as string;
    const next = words[at + 1];
    if (VALUED_OUTPUT_FLAGS.has(word) && next !== undefined) {
      if (word !== "-p" || next.startsWith("no:")) {
        at++;
        continue;
      }
    }
    // `-v 2` (Django's runtests.py verbosity) names a level, not a test.
    if (/^-v+$/.test(word) && next !== undefined && /^\d$/.test(next)) {
      at++;
      continue;
    }
    if (!OUTPUT_FLAGS.test(word)) kept.push(word);
  }
  return kept;
}

/** The shell command of a call's parsed input. */
function commandOf(input: unknown): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  for (const field of ["command", "cmd", "script"]) {
    const value: unknown = (input as Record<string, unknown>)[field];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((part) => typeof part === "string")) {
      return value.join(" ");
    }
  }
  return undefined;
}

/** A command echoed as the output's first line, `$ pytest …`. */
function promptCommand(text: string): string | undefined {
  return /^\$ (.+)/.exec(text)?.[1];
}
