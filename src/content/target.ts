import { commandOf } from "../components/cmdfilter/command.js";
import type { ToolCall } from "../wire/types.js";
import { isReadTool } from "./class-by-call.js";
import { isPathWord, samePath } from "./path-names.js";
import { commandTarget } from "./shell-target.js";

/** Lines of a file, 1-based and inclusive; `last` is Infinity for "to the end of the file". */
export interface LineRange {
  readonly first: number;
  readonly last: number;
}

interface TargetOf<K extends string> {
  readonly kind: K;
  /** Which call it was: the same key again is the same call made again. */
  readonly key: string;
  /** The files (or directories, or globs) the call names. */
  readonly paths: readonly string[];
}

/** A file's lines; `lines` undefined for a part that cannot be placed (its last 80 lines). */
export interface ReadTarget extends TargetOf<"read"> {
  readonly lines: LineRange | undefined;
}

/** A search, a listing, a test run, an API call; `searches` when it searched file contents. */
export interface RunTarget extends TargetOf<"run"> {
  readonly searches: boolean;
}

/**
 * What a tool output is about, from the call that produced it (§5 mask):
 * - `read`: a file's lines — a Read-style tool (`file_path`/`path` with `offset`/`limit`,
 *   `view_range`, `start_line`/`end_line`; none: the whole file), an editor's `view`, or a shell
 *   read (shell-target.ts);
 * - `edit`: the files it changed — arguments that carry an edit (`old_string`/`new_string`,
 *   `edits`, `content` or `file_text` beside a path, whatever the tool is called), an editor's
 *   `create`/`str_replace`/`insert`/`undo_edit`, a patch (`*** Update File: path`, as Codex's
 *   `apply_patch` sends it, in the input or the command line), `sed -i`;
 * - `run`: anything else — a search, a listing, a test run, an API call — with the paths its
 *   arguments name (a shell command's path-like words, a search tool's `path`); it `searches`
 *   when it searched the contents of those paths (`grep`, `rg`, a `Grep` tool).
 */
export type Target = ReadTarget | TargetOf<"edit"> | RunTarget;

/** Targets of the calls read so far, each call read once (many outputs may answer one call). */
const targets = new WeakMap<ToolCall, Target>();

/** What the output of `call` is about; undefined without a call. */
export function targetOf(call: ToolCall | undefined): Target | undefined {
  if (!call) return undefined;
  let target = targets.get(call);
  if (target === undefined) {
    target = readCall(call);
    targets.set(call, target);
  }
  return target;
}

const EDITOR_READS = new Set(["view"]);
const EDITOR_EDITS = new Set(["create", "str_replace", "insert", "undo_edit", "write"]);
const EDIT_ARGUMENTS = ["old_string", "new_string", "edits", "old_str", "new_str", "file_text"];
const SEARCH_TOOLS = /grep|search/i;
const PATH_KEYS = ["path", "paths", "file_path", "filePath", "notebook_path", "file", "files"];

function readCall(call: ToolCall): Target {
  const { input } = call;
  const edited = editedPaths(call);
  // An edit is never the same call again (each one changed something): its key is its files.
  if (edited.length > 0)
    return { kind: "edit", key: `${call.name} ${edited.join(" ")}`, paths: edited };
  const key = `${call.name} ${typeof input === "string" ? input : JSON.stringify(input)}`;
  const fields = isRecord(input) ? input : {};
  const path = readPath(fields);
  const editor = typeof fields.command === "string" ? fields.command : undefined;
  if (path !== undefined && (isReadTool(call.name) || (editor && EDITOR_READS.has(editor)))) {
    return { kind: "read", key, paths: [path], lines: readLines(fields) };
  }
  const command = commandLine(fields) ?? commandOf(call);
  if (command !== undefined) return commandTarget(command);
  const searches = SEARCH_TOOLS.test(call.name);
  return { kind: "run", key, paths: namedPaths(fields), searches };
}

/** The files a call edits by its arguments: a patch's, an editor command's, an edit's path. */
function editedPaths(call: ToolCall): string[] {
  const patched = patchedPaths(call.input);
  if (patched.length > 0) return patched;
  const fields = isRecord(call.input) ? call.input : {};
  const path = readPath(fields);
  if (path === undefined) return [];
  const editor = typeof fields.command === "string" ? fields.command : undefined;
  if (editor !== undefined && EDITOR_EDITS.has(editor)) return [path];
  const edits = EDIT_ARGUMENTS.some((name) => name in fields) || typeof fields.content === "string";
  return edits ? [path] : [];
}

/**
 * The command line of an argv array (`["bash", "-lc", "sed -n '1,9p' a.ts"]`), its words quoted
 * back where they need it so that a shell's script is read as one word; commandOf joins them.
 */
function commandLine(input: Record<string, unknown>): string | undefined {
  const argv = input.command ?? input.cmd;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every(isString)) return undefined;
  return argv
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`))
    .join(" ");
}

/** The path a file tool's arguments name (`file_path`, `path`, `filePath`, `notebook_path`). */
export function readPath(input: Record<string, unknown>): string | undefined {
  const { file_path: filePath, path, filePath: camel, notebook_path: notebook } = input;
  return [filePath, path, camel, notebook].find((value) => typeof value === "string");
}

/**
 * The lines a read call asked for: `offset`/`limit`, `view_range` ([first, last], last -1 for
 * the end), `start_line`/`end_line`; undefined when it asked for none.
 */
export function askedLines(input: Record<string, unknown>): LineRange | undefined {
  const { offset, limit, view_range: view, start_line: first, end_line: last } = input;
  if (isLine(offset) && isLine(limit)) return { first: offset, last: offset + limit - 1 };
  if (isLine(offset)) return { first: offset, last: Infinity };
  if (isLine(limit)) return { first: 1, last: limit };
  if (Array.isArray(view) && isLine(view[0]) && typeof view[1] === "number") {
    return { first: view[0], last: view[1] < 0 ? Infinity : view[1] };
  }
  if (isLine(first)) return { first, last: isLine(last) ? last : Infinity };
  return undefined;
}

/** The lines a read showed: those asked for, the whole file when none were, else unplaced. */
function readLines(input: Record<string, unknown>): LineRange | undefined {
  const asked = askedLines(input);
  if (asked !== undefined) return asked;
  const placed = ["offset", "limit", "view_range", "start_line"].every((name) => !(name in input));
  return placed ? { first: 1, last: Infinity } : undefined;
}

const PATCHED = /^\*\*\* (?:Update File|Add File|Delete File|Move to): (.+)$/gm;

/** The files a patch in the call's arguments names (`*** Update File: path`, …), each once. */
function patchedPaths(input: unknown): string[] {
  const texts = typeof input === "string" ? [input] : isRecord(input) ? stringsOf(input) : [];
  const paths = new Set<string>();
  for (const text of texts) {
    if (!text.includes("*** ")) continue;
    for (const match of text.matchAll(PATCHED)) paths.add((match[1] as string).trim());
  }
  return [...paths];
}

/** The string values of a call's arguments, and the strings of its arrays (an argv). */
function stringsOf(input: Record<string, unknown>): string[] {
  return Object.values(input).flatMap((value) =>
    typeof value === "string" ? [value] : Array.isArray(value) ? value.filter(isString) : [],
  );
}

/** The paths a tool's arguments name under the keys that hold paths. */
function namedPaths(input: Record<string, unknown>): string[] {
  const values = PATH_KEYS.flatMap((name) => {
    const value = input[name];
    return typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  });
  return values.filter((value): value is string => isString(value) && isPathWord(value));
}

/**
 * True when `later` shows all that `earlier` showed of the same thing, so `earlier` is
 * superseded: the same call made again (an edit aside: each one changed something), or a read
 * of the same file over every line the earlier read showed. A read of a few of its lines does
 * not supersede a longer read.
 */
export function supersedes(later: Target, earlier: Target): boolean {
  if (later.kind === "edit" || earlier.kind === "edit") return false;
  if (later.key === earlier.key) return true;
  if (later.kind !== "read" || earlier.kind !== "read") return false;
  return (
    samePath(later.paths[0] ?? "", earlier.paths[0] ?? "") && covers(later.lines, earlier.lines)
  );
}

function covers(outer: LineRange | undefined, inner: LineRange | undefined): boolean {
  if (outer === undefined) return false;
  if (inner === undefined) return outer.first === 1 && outer.last === Infinity;
  return outer.first <= inner.first && outer.last >= inner.last;
}

function isLine(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
