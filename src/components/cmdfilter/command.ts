import type { ToolCall } from "../../wire/types.js";
import type { Argv } from "./filter.js";
import { tokenize } from "./shell-words.js";

/**
 * The commands behind a shell tool output. The command string comes from the paired call's
 * `input.command` or `input.cmd` (a string, or an argv array joined by spaces). It is split into
 * simple commands on `;`, `&&`, `||`, `&`, newlines and parentheses; of each pipeline only the
 * first stage counts (later `| grep`, `| head` stages trim the same output). Redirections,
 * comments, leading `VAR=value` assignments and wrappers are removed, and runners are unwrapped
 * (`npx jest` → `jest`, `python -m pytest` → `pytest`, `python tests/runtests.py` →
 * `tests/runtests.py`, `uv pip` → `pip`, `bash -c "…"` → its script). Commands that print nothing worth filtering (`cd`,
 * `echo`, `export`, …) are left out.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asCommand(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length > 0 && value.every((word) => typeof word === "string")) {
    return value.join(" ");
  }
  return undefined;
}

/** The shell command a call ran, if it ran one. */
export function commandOf(call: ToolCall | undefined): string | undefined {
  if (!call || !isRecord(call.input)) return undefined;
  return asCommand(call.input.command) ?? asCommand(call.input.cmd);
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const TRIVIAL = new Set([
  "cd",
  "pushd",
  "popd",
  "echo",
  "printf",
  "export",
  "set",
  "unset",
  "source",
  ".",
  "true",
  "false",
  ":",
  "sleep",
  "clear",
  "wait",
]);
/** Wrappers and the options of theirs that take a value. */
const WRAPPERS: Readonly<Record<string, readonly string[]>> = {
  sudo: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
  env: ["-u", "-C", "-S"],
  time: ["-f", "-o"],
  nice: ["-n"],
  nohup: [],
  command: [],
  exec: ["-a"],
  stdbuf: [],
  unbuffer: [],
  timeout: ["-s", "-k", "--signal", "--kill-after"],
};
const RUN_SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  pnpm: ["exec", "dlx"],
  yarn: ["exec", "dlx"],
  uv: ["run", "tool"],
  poetry: ["run"],
  pipenv: ["run"],
  pdm: ["run"],
  hatch: ["run"],
  rye: ["run"],
};
const DIRECT_RUNNERS = new Set(["npx", "bunx", "pnpx", "uvx"]);
const PYTHON = /^(?:python[\d.]*|py|pypy[\d.]*)$/;

function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** `words` from `from` on, past options (and the values of `valued` options) and assignments. */
function skipOptions(words: readonly string[], from: number, valued: readonly string[]): number {
  let at = from;
  while (at < words.length) {
    const word = words[at] as string;
    if (ASSIGNMENT.test(word) || (word.startsWith("-") && word !== "-"))
      at += valued.includes(word) ? 2 : 1;
    else break;
  }
  return at;
}

function unwrapPython(words: readonly string[]): string[] {
  const at = skipOptions(words, 1, ["-W", "-X", "-m", "-c"]);
  const module = words.indexOf("-m");
  if (module !== -1 && module < at) return words.slice(module + 1);
  if (words.slice(1, at).includes("-c")) return [...words];
  const script = words[at];
  return script === undefined || script === "-" ? [...words] : words.slice(at);
}

/** The argv a simple command stands for, wrappers and runners removed. */
export function normalise(words: readonly string[]): string[] {
  let rest = words.slice(skipOptions(words, 0, []));
  for (let guard = 0; guard < 8 && rest.length > 0; guard++) {
    const program = basename(rest[0] as string);
    const valued = WRAPPERS[program];
    const runs = RUN_SUBCOMMANDS[program];
    if (valued) {
      rest = rest.slice(skipOptions(rest, 1, valued));
      if (program === "timeout") rest = rest.slice(1);
    } else if (DIRECT_RUNNERS.has(program)) {
      rest = rest.slice(skipOptions(rest, 1, ["-p", "--package"]));
    } else if (runs?.includes(rest[1] ?? "")) {
      rest = rest.slice(skipOptions(rest, 2, []));
    } else if (program === "uv" && rest[1] === "pip") {
      rest = rest.slice(1);
    } else if (PYTHON.test(program)) {
      const unwrapped = unwrapPython(rest);
      if (unwrapped.length === rest.length) break;
      rest = unwrapped;
    } else {
      break;
    }
  }
  if (rest.length > 0) rest[0] = basename(rest[0] as string);
  return rest;
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash"]);

/**
 * Every pipeline whose output lands in the tool output, as the argv of each of its stages
 * (wrappers and runners removed from each; `bash -c "…"` replaced by its script's pipelines).
 * Pipelines whose first command prints nothing worth reading (`cd`, `echo`, …) are left out.
 */
export function pipelinesOf(command: string, depth = 0): Argv[][] {
  return tokenize(command).flatMap((stages) => {
    const argv = normalise(stages[0] ?? []);
    const [program, flags, script] = argv;
    if (
      SHELLS.has(program ?? "") &&
      /^-\w*c\w*$/.test(flags ?? "") &&
      script !== undefined &&
      depth < 2
    ) {
      return pipelinesOf(script, depth + 1);
    }
    if (argv.length === 0 || TRIVIAL.has(program ?? "")) return [];
    return [[argv, ...stages.slice(1).map((stage) => normalise(stage))]];
  });
}

/** The argv of every simple command whose output lands in the tool output. */
export function commandsOf(command: string): Argv[] {
  return pipelinesOf(command).map((stages) => stages[0] as Argv);
}
