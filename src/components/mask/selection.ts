import { namesFile, pathsIn, samePath } from "../../content/path-names.js";
import { supersedes, type Target, targetOf } from "../../content/target.js";
import type { AgentText } from "../../wire/transcript.js";
import type { ToolOutput } from "../../wire/types.js";

/** What mask's rule reads of a request, from mask itself or from the priced-break estimate. */
export interface MaskRequest {
  /** Every tool output of the request, in order, with its call. */
  readonly outputs: readonly ToolOutput[];
  /** The agent's own texts, in message order. */
  readonly agentText: readonly AgentText[];
  readonly keepRecent: number;
  readonly workingSetTokens: number;
  /** Whether mask may take output `index` (its age aside): changeable, large enough, not excluded. */
  mayTake(index: number): boolean;
  /** Whether output `index` reads as received: only such a later output supersedes another. */
  readable(index: number): boolean;
  /** Tokens of output `index` when at most `limit`; undefined when it has more. */
  tokensWithin(index: number, limit: number): number | undefined;
}

/**
 * Which outputs mask hides (§5). Of the outputs older than the recent ones (firstRecentOf) that
 * it may take, every one superseded by a later readable output on the same target goes first
 * (target.ts: a later read of the same file over all its lines, the same command run again);
 * then every one the agent no longer works with. It still works with an output when
 * - the output's file is named by the calls of the recent outputs (read again, edited, searched
 *   by a content search whose path holds it, run or tested) or by the agent's own text after the
 *   output before them (`query.py`, `src/app.ts:12`); or
 * - it is the newest read of a file the agent has edited since (the text an edit copies from).
 * What it keeps for that need is the working set, bounded by `workingSetTokens`: from the newest
 * back, each one is kept while it fits in what is left, so the oldest go first and the rule
 * never keeps everything. A pure function of the request: the same outputs, calls, texts and
 * options give the same choice. Returns indexes in order.
 */
export function maskSelection(request: MaskRequest): number[] {
  const { outputs } = request;
  const firstRecent = firstRecentOf(outputs, request.keepRecent);
  if (firstRecent <= 0) return [];
  const targets = outputs.map((output) => targetOf(output.call));
  const named = namedRecently(request, targets, firstRecent);
  const later = new LaterTargets();
  let room = request.workingSetTokens;
  const masked: number[] = [];
  for (let index = outputs.length - 1; index >= 0; index--) {
    const target = targets[index];
    if (index < firstRecent && request.mayTake(index)) {
      if (target !== undefined && later.supersede(target)) masked.push(index);
      else if (target === undefined || !needed(target, named, later)) masked.push(index);
      else {
        const tokens = request.tokensWithin(index, room);
        if (tokens === undefined) masked.push(index);
        else room -= tokens;
      }
    }
    if (target !== undefined && request.readable(index)) later.add(target);
  }
  return masked.reverse();
}

/**
 * The first of the outputs mask leaves as they are: the newest `keepRecent`, and with them (unless
 * `keepRecent` is 0) every output of the newest turn — the trailing outputs no other message
 * separates (the results in one Anthropic user message, consecutive OpenAI tool messages or
 * Responses output items): the model has not read yet any of what it just asked for.
 */
function firstRecentOf(outputs: readonly ToolOutput[], keepRecent: number): number {
  const first = outputs.length - keepRecent;
  if (keepRecent === 0) return first;
  let turn = outputs.length - 1;
  while (turn > 0) {
    const gap = (outputs[turn]?.messageIndex ?? 0) - (outputs[turn - 1]?.messageIndex ?? 0);
    if (gap > 1) break;
    turn--;
  }
  return Math.min(first, turn);
}

/** A path the newest turns name; `scope` when it names the files under it too (a search's). */
interface NamedPath {
  readonly path: string;
  readonly scope: boolean;
}

/**
 * The paths the newest turns name: those of the newest `keepRecent` outputs' calls (a content
 * search's as a scope: the files it searched), and those of the agent's text after the output
 * before them.
 */
function namedRecently(
  request: MaskRequest,
  targets: readonly (Target | undefined)[],
  firstRecent: number,
): NamedPath[] {
  const named = new Map<string, boolean>();
  const add = (path: string, scope: boolean) => named.set(path, scope || named.get(path) === true);
  for (const target of targets.slice(firstRecent)) {
    const scope = target?.kind === "run" && target.searches;
    for (const path of target?.paths ?? []) add(path, scope);
  }
  const after = request.outputs[firstRecent - 1]?.messageIndex ?? -1;
  for (const { messageIndex, text } of request.agentText) {
    if (messageIndex > after) for (const path of pathsIn(text)) add(path, false);
  }
  return [...named].map(([path, scope]) => ({ path, scope }));
}

/** True when the agent still works with an output on `target` (see maskSelection). */
function needed(target: Target, named: readonly NamedPath[], later: LaterTargets): boolean {
  const files = target.paths;
  const names = ({ path, scope }: NamedPath, file: string) =>
    scope ? namesFile(path, file) : samePath(path, file);
  if (files.some((file) => named.some((path) => names(path, file)))) return true;
  const file = files[0] ?? "";
  return target.kind === "read" && !later.reads(file) && later.edits(file);
}

/**
 * The targets of the outputs after the one being decided (walking from the newest back), found
 * by key and by file name: a file is the same file only under the same last name.
 */
class LaterTargets {
  readonly #keys = new Set<string>();
  readonly #reads = new Map<string, Target[]>();
  readonly #edited = new Map<string, string[]>();

  add(target: Target): void {
    if (target.kind === "edit") {
      for (const path of target.paths) listed(this.#edited, lastName(path)).push(path);
      return;
    }
    this.#keys.add(target.key);
    if (target.kind === "read") listed(this.#reads, lastName(target.paths[0] ?? "")).push(target);
  }

  /** True when a later output supersedes one on `target`. */
  supersede(target: Target): boolean {
    if (target.kind === "edit") return false;
    if (this.#keys.has(target.key)) return true;
    const reads = this.#reads.get(lastName(target.paths[0] ?? "")) ?? [];
    return reads.some((later) => supersedes(later, target));
  }

  /** True when a later output reads `file` (any of its lines). */
  reads(file: string): boolean {
    const reads = this.#reads.get(lastName(file)) ?? [];
    return reads.some((later) => samePath(later.paths[0] ?? "", file));
  }

  /** True when a later call edits `file`. */
  edits(file: string): boolean {
    const edited = this.#edited.get(lastName(file)) ?? [];
    return edited.some((path) => samePath(path, file));
  }
}

function lastName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

function listed<T>(lists: Map<string, T[]>, key: string): T[] {
  let list = lists.get(key);
  if (list === undefined) {
    list = [];
    lists.set(key, list);
  }
  return list;
}
