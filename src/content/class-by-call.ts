import { commandOf, pipelinesOf } from "../components/cmdfilter/command.js";
import type { Argv } from "../components/cmdfilter/filter.js";
import { gitSubcommand } from "../components/cmdfilter/git.js";
import type { SizedMemo } from "../pipeline/sized-memo.js";
import type { ToolCall } from "../wire/types.js";
import type { ContentClass } from "./content-class.js";

/**
 * The class a tool call's output has by what was called, before its text is looked at:
 * - a Read-style tool (`Read`, `read_file`, `view`, `open`, `str_replace_editor`, …) → `file`;
 * - a search or listing tool (`Grep`, `Glob`, `LS`, `list_files`, `search_dir`, …) → `search`;
 * - a shell command (`input.command` / `input.cmd`): each pipeline is classed by its first
 *   command (`cat`, `nl`, `head`, `tail`, `sed`, `bat`, `xxd` → `file`; `git diff`, `git show`,
 *   `git stash show`, `git format-patch`, `git log -p`, `diff`, `svn|hg diff` → `diff`; `grep`,
 *   `rg`, `ag`, `ack`, `git grep`, `git ls-files`, `find`, `fd`, `ls`, `tree`, `locate` → `search`)
 *   and a later `| grep` (`rg`, `ag`, `ack`) stage makes it `search`; later `| head`, `| tail`,
 *   `| sort` stages only trim. When any pipeline of the command line is of a fact class, the
 *   output is (the first such class): it holds those facts, whatever else ran beside them.
 *   Any other command → `shell`, left to the output's shape, else `log`.
 * - anything else → undefined, left to the output's shape, else `text`.
 */
export type CallClass = ContentClass | "shell";

const READ_TOOLS =
  /^(?:read|read_?file|read_?many_?files|view|view_?file|open|open_?file|fs_?read|goto|scroll_?(?:up|down)|str_replace_(?:based_)?edit(?:or|_tool)|notebook_?read)$/i;
const SEARCH_TOOLS =
  /^(?:grep|glob|ls|list|list_?(?:dir|directory|files)|find_?files?|search|search_?(?:files|file|dir|code)|grep_?search|file_?search|ripgrep)$/i;

const PRINTERS = new Set(["cat", "nl", "head", "tail", "less", "more", "bat", "batcat", "xxd"]);
const DIFFS = new Set(["diff", "colordiff", "interdiff"]);
const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "ack-grep"]);
const LISTERS = new Set(["find", "fd", "fdfind", "ls", "tree", "locate"]);
const GIT_DIFFS = new Set(["diff", "show", "format-patch"]);
const PATCH_FLAGS = new Set(["-p", "-u", "--patch"]);

/** True for a tool that reads a file (`Read`, `read_file`, `view`, `str_replace_editor`, …). */
export function isReadTool(name: string): boolean {
  return READ_TOOLS.test(name);
}

/**
 * Classes of the calls read so far, each read once: many outputs may answer one call, and its
 * command may be long. Held only while the call itself is.
 */
const classes = new WeakMap<ToolCall, CallClass | undefined>();

/**
 * The class of `call`'s output by what was called. `commands` remembers the class of each
 * command line across requests (a call is parsed anew with every body that carries it, and an
 * agent re-sends its history every turn): splitting a command line into its pipelines is the
 * costly part, and its class depends on the line alone.
 */
export function classOfCall(
  call: ToolCall | undefined,
  commands?: SizedMemo<CallClass>,
): CallClass | undefined {
  if (!call) return undefined;
  if (classes.has(call)) return classes.get(call);
  const found = readCall(call, commands);
  classes.set(call, found);
  return found;
}

function readCall(
  call: ToolCall,
  commands: SizedMemo<CallClass> | undefined,
): CallClass | undefined {
  if (isReadTool(call.name)) return "file";
  if (SEARCH_TOOLS.test(call.name)) return "search";
  const command = commandOf(call);
  if (command === undefined) return undefined;
  let found = commands?.get(command);
  if (found === undefined) {
    found = classOfCommand(command);
    commands?.set(command, found);
  }
  return found;
}

/** The class of a shell command line's output (see above). */
export function classOfCommand(command: string): CallClass {
  for (const stages of pipelinesOf(command)) {
    const found = classOfPipeline(stages);
    if (found !== undefined) return found;
  }
  return "shell";
}

function classOfPipeline(stages: readonly Argv[]): ContentClass | undefined {
  const filtered = stages.slice(1).some((stage) => SEARCHERS.has(stage[0] ?? ""));
  if (filtered) return "search";
  return classOfProgram(stages[0] ?? []);
}

function classOfProgram(argv: Argv): ContentClass | undefined {
  const program = argv[0] ?? "";
  if (PRINTERS.has(program)) return "file";
  if (program === "sed") return "file";
  if (DIFFS.has(program)) return "diff";
  if (SEARCHERS.has(program) || LISTERS.has(program)) return "search";
  if ((program === "svn" || program === "hg") && argv[1] === "diff") return "diff";
  const git = gitSubcommand(argv);
  if (git === undefined) return undefined;
  if (GIT_DIFFS.has(git)) return "diff";
  if (git === "stash" && argv.includes("show")) return "diff";
  if (git === "log" && argv.some((word) => PATCH_FLAGS.has(word))) return "diff";
  if (git === "grep" || git === "ls-files" || git === "ls-tree") return "search";
  return undefined;
}
