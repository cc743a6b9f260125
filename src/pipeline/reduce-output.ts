import { createHash } from "node:crypto";
import type { ComponentName, Config, MarkerMode } from "../config/schema.js";
import { markerIds } from "../expand/markers.js";
import type { StashEntry } from "../store/types.js";
import type { ToolCall, ToolOutput } from "../wire/types.js";
import type { PipelineDeps } from "./run.js";
import type { Component, ComponentContext } from "./types.js";

/**
 * An output-scoped component's result for one output, memoised across requests by (component,
 * mode, text, call): such a result is a pure function of those. The memo also keeps what the
 * result asked to stash, so a hit hands the same stashes to `pending`.
 */
export function reduceOutput(
  deps: PipelineDeps,
  component: Extract<Component, { scope: "output" }>,
  options: Config["components"][ComponentName],
  mode: MarkerMode,
  context: ComponentContext,
  pending: Map<string, string>,
  output: ToolOutput,
): Promise<string | undefined> {
  // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
  const run = () => component.reduce(output, options as any, context);
  return memoised(
    deps,
    `${component.name}\u0000${mode}`,
    output.text,
    callKeyOf(output),
    pending,
    run,
  );
}

/**
 * The replacement a request-scoped component that reduces a text alone (`reducesText`) gives a
 * slot, memoised across requests by (component, mode, text) as reduceOutput memoises an output
 * component's: a replay asks it again about every slot it decided, and each answer is the last.
 */
export function reduceText(
  deps: PipelineDeps,
  component: Extract<Component, { scope: "request" }>,
  options: Config["components"][ComponentName],
  mode: MarkerMode,
  context: ComponentContext,
  pending: Map<string, string>,
  slot: ToolOutput,
): Promise<string | undefined> {
  // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
  const run = () => component.reduce(slot, options as any, context);
  return memoised(deps, `${component.name}\u0000${mode}`, slot.text, "", pending, run);
}

async function memoised(
  deps: PipelineDeps,
  table: string,
  text: string,
  callKey: string,
  pending: Map<string, string>,
  run: () => string | undefined | Promise<string | undefined>,
): Promise<string | undefined> {
  const known = deps.memo.get(table, text, callKey);
  if (known) {
    for (const { key, value } of known.stashes) pending.set(key, value);
    return known.text;
  }
  const result = await run();
  // What the result's markers stand for, however `pending` came to hold it (another output of
  // this run may have asked for the same original first).
  const stashes: StashEntry[] = [];
  for (const key of new Set(result === undefined ? [] : markerIds(result))) {
    const value = pending.get(key);
    if (value !== undefined) stashes.push({ key, value });
  }
  deps.memo.set(table, text, callKey, { text: result, stashes });
  return result;
}

/**
 * The memo key of an output's call: what output-scoped components may read of it, the tool's
 * name and the shell command it ran (`command` or `cmd`, a string or an argv array; a long one
 * by its digest), and the content class decided from the received text.
 */
function callKeyOf(output: ToolOutput): string {
  return `${output.contentClass}\u0000${output.call ? callOf(output.call) : ""}`;
}

/**
 * Keys of the calls seen so far, each built once: many outputs may answer one call. Held only
 * while the call itself is.
 */
const callKeys = new WeakMap<ToolCall, string>();

/**
 * A call key longer than this stands in the memo as the SHA-256 of its UTF-16 code units (which,
 * unlike UTF-8, keep every lone surrogate apart), so comparing keys costs the same however long
 * the command.
 */
const LONG_KEY = 1024;

function callOf(call: ToolCall): string {
  let key = callKeys.get(call);
  if (key === undefined) {
    const text = callText(call);
    key =
      text.length > LONG_KEY
        ? `\u0001${createHash("sha256").update(text, "utf16le").digest("base64")}`
        : text;
    callKeys.set(call, key);
  }
  return key;
}

function callText(call: ToolCall): string {
  const input = call.input as { command?: unknown; cmd?: unknown } | null | undefined;
  const command =
    typeof input === "object" && input !== null ? (input.command ?? input.cmd) : undefined;
  if (command === undefined) return call.name;
  return `${call.name}\u0000${typeof command === "string" ? command : JSON.stringify(command)}`;
}
