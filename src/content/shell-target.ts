import { pipelinesOf } from "../components/cmdfilter/command.js";
import type { Argv } from "../components/cmdfilter/filter.js";
import { commandRun } from "../components/test-runs.js";
import { isPathWord } from "./path-names.js";
import type { LineRange, Target } from "./target.js";

/**
 * What a shell command line is about (target.ts):
 * - one pipeline that prints one file — `cat`, `nl`, `bat`, `less`, `more`, `xxd` (the whole
 *   file), `head` (its first lines), `tail -n +K` (from line K; any other `tail`, a part that
 *   cannot be placed), `sed -n 'A,Bp'` (lines A to B) — trimmed only by later `| head`,
 *   `| sed -n` stages (or numbered by `| nl`, `| cat -n`): a read of that file and those lines;
 * - `sed -i` on files: an edit of them (a patch in the command line is read before, target.ts);
 * - anything else (searches, test runs, listings): a run, that `searches` when one of its
 *   commands is a content search (`grep`, `rg`, `ag`, `ack`, `git grep`, also `… | grep`). Running it again (the same command
 *   line, whitespace aside; for a test run the same target as failed_run reads it, output flags
 *   aside) supersedes it. The paths it names are its words that read as paths, a search's
 *   pattern and `sed`'s or `awk`'s script left out; a `path::test` or `path:line` names `path`.
 */
export function commandTarget(command: string): Target {
  let target = targets.get(command);
  if (target === undefined) {
    target = readCommand(command);
    // Agents re-send the same command lines every turn: the newest thousands are remembered.
    if (targets.size >= MAX_REMEMBERED) targets.delete(targets.keys().next().value as string);
    targets.set(command, target);
  }
  return target;
}

/** Targets of command lines read so far, by line: a pure function's results, oldest first. */
const targets = new Map<string, Target>();
const MAX_REMEMBERED = 4096;

function readCommand(command: string): Target {
  const line = command.trim().replace(/\s+/g, " ");
  const pipelines = pipelinesOf(command);
  if (pipelines.length === 1) {
    const read = readOf(pipelines[0] as Argv[]);
    if (read) return { kind: "read", key: `$ ${line}`, paths: [read.path], lines: read.lines };
  }
  const edited = pipelines.flatMap((stages) => inPlaceEdits(stages[0] as Argv));
  if (edited.length > 0) return { kind: "edit", key: `$ ${line}`, paths: edited };
  const run = commandRun(command);
  const paths = new Set(pipelines.flatMap((stages) => stages.flatMap(pathsOfArgv)));
  const searches = pipelines.some((stages) => stages.some(searchesFiles));
  const key = run ? `run ${run.target}` : `$ ${line}`;
  return { kind: "run", key, paths: [...paths], searches };
}

const WHOLE: LineRange = { first: 1, last: Infinity };
const PRINTERS = new Set(["cat", "nl", "bat", "batcat", "less", "more", "xxd"]);
const NUMBERERS = new Set(["nl", "cat"]);
/** Options that take the next word as their value, by program. */
const VALUED: Readonly<Record<string, readonly string[]>> = {
  head: ["-n", "-c"],
  tail: ["-n", "-c"],
  nl: ["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"],
  sed: ["-e", "-f", "-l"],
  bat: ["-l", "-r", "--line-range", "--style"],
};

function readOf(
  stages: readonly Argv[],
): { path: string; lines: LineRange | undefined } | undefined {
  const [first, ...trims] = stages;
  const printed = first && printedFile(first);
  if (!printed) return undefined;
  let lines = printed.lines;
  for (const stage of trims) {
    const program = stage[0] ?? "";
    if (NUMBERERS.has(program) && positional(stage).length === 0) continue;
    const shown = program === "head" ? headLines(stage) : printRange(stage);
    if (shown === undefined || lines === undefined) return undefined;
    lines = within(lines, shown);
  }
  return { path: printed.path, lines };
}

/** The file one printing command prints, and which of its lines. */
function printedFile(argv: Argv): { path: string; lines: LineRange | undefined } | undefined {
  const program = argv[0] ?? "";
  const words = positional(argv);
  if (program === "sed") {
    const lines = printRange(argv);
    const path = words[1];
    return lines && path !== undefined && words.length === 2 ? { path, lines } : undefined;
  }
  const path = words[0];
  if (path === undefined || words.length !== 1) return undefined;
  if (PRINTERS.has(program)) return { path, lines: WHOLE };
  if (program === "head") return { path, lines: headLines(argv) };
  if (program !== "tail") return undefined;
  const from = optionValue(argv, "-n")?.match(/^\+(\d+)$/);
  return { path, lines: from ? { first: Number(from[1]), last: Infinity } : undefined };
}

/** Lines `head` keeps: `-n N`, `-nN`, `-N`, `--lines=N`; 10 by default; bytes cannot be placed. */
function headLines(argv: Argv): LineRange | undefined {
  if (argv.some((word) => word.startsWith("-c") || word.startsWith("--bytes"))) return undefined;
  const dashed = argv.find((word) => /^-\d+$/.test(word));
  const count = dashed === undefined ? (optionValue(argv, "-n") ?? "10") : dashed.slice(1);
  return /^\d+$/.test(count) ? { first: 1, last: Number(count) } : undefined;
}

/** The lines `sed -n 'A,Bp'` (`'Ap'`, `'A,$p'`) prints; undefined for any other sed. */
function printRange(argv: Argv): LineRange | undefined {
  if (argv[0] !== "sed" || !argv.includes("-n")) return undefined;
  const script = optionValue(argv, "-e") ?? positional(argv)[0] ?? "";
  const range = /^(\d+)(?:,(\d+|\$))?p$/.exec(script);
  if (!range) return undefined;
  const first = Number(range[1]);
  const last = range[2] === undefined ? first : range[2] === "$" ? Infinity : Number(range[2]);
  return { first, last };
}

/** `shown` lines of what `lines` printed, as lines of the file. */
function within(lines: LineRange, shown: LineRange): LineRange {
  const first = lines.first + shown.first - 1;
  return { first, last: Math.min(lines.last, lines.first + shown.last - 1) };
}

/** The files `sed -i` edits in place. */
function inPlaceEdits(argv: Argv): string[] {
  if (argv[0] !== "sed" || !argv.some((word) => /^-i|^--in-place/.test(word))) return [];
  const words = positional(argv);
  return (argv.includes("-e") ? words : words.slice(1)).filter(isPathWord);
}

/** The value of option `name` (`-n 5`, `-n5`, `--lines=5`). */
function optionValue(argv: Argv, name: string): string | undefined {
  for (let at = 1; at < argv.length; at++) {
    const word = argv[at] as string;
    if (word === name) return argv[at + 1];
    if (word.startsWith(name) && word.length > name.length && !word.startsWith("--")) {
      return word.slice(name.length);
    }
    if (name === "-n" && word.startsWith("--lines=")) return word.slice("--lines=".length);
  }
  return undefined;
}

/** The words of a command that are not options nor option values. */
function positional(argv: Argv): string[] {
  const valued = VALUED[argv[0] ?? ""] ?? [];
  const words: string[] = [];
  for (let at = 1; at < argv.length; at++) {
    const word = argv[at] as string;
    if (valued.includes(word)) at++;
    else if (!word.startsWith("-") || word === "-") words.push(word);
  }
  return words;
}

const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack"]);
const SCRIPTED = new Set([...SEARCHERS, "sed", "awk"]);

/** True for a command that searches file contents: `grep`, `rg`, `ag`, `ack`, `git grep`. */
function searchesFiles(argv: Argv): boolean {
  const program = argv[0] ?? "";
  return SEARCHERS.has(program) || (program === "git" && argv.includes("grep"));
}

/** The paths one command names: the program when it is a script, its path-like arguments. */
function pathsOfArgv(argv: Argv): string[] {
  const program = argv[0] ?? "";
  const words = argv.slice(1).map((word) => word.replace(/:{1,2}[^/]*$/, ""));
  // A search's pattern, or a sed/awk script, is the first word unless given by an option.
  const scripted = SCRIPTED.has(program) && !argv.some((word) => word === "-e" || word === "-f");
  const named = scripted ? dropFirstPositional(words) : words;
  const paths = named.filter((word) => !word.startsWith("-") && isPathWord(word));
  return isPathWord(program) && /\.\w+$/.test(program) ? [program, ...paths] : paths;
}

function dropFirstPositional(words: readonly string[]): string[] {
  const first = words.findIndex((word) => !word.startsWith("-"));
  return first === -1 ? [...words] : words.filter((_, at) => at !== first);
}
