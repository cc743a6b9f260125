import { isExcluded } from "../config/excluded-tools.js";
import type { ComponentName, Config, MarkerMode } from "../config/schema.js";
import { markerIds } from "../expand/markers.js";
import type { Decision } from "../session/ledger.js";
import type { PendingStash } from "../session/records.js";
import type { StashEntry } from "../store/types.js";
import type { Transcript } from "../wire/transcript.js";
import type { ToolOutput } from "../wire/types.js";
import { ambiguousRecords } from "./ambiguity.js";
import { componentContext, currentOutput, currentOutputs } from "./context.js";
import { guardChanges } from "./guards.js";
import { type AcceptedReplacement, guardReplacement } from "./messages-step.js";
import { cutOneWay } from "./one-way.js";
import type { OutputMemo } from "./output-memo.js";
import { OutputState } from "./output-state.js";
import type { ComponentReport, OneWayReason, RunReport } from "./report.js";
import { Revert } from "./revert.js";
import type { TokenCounter } from "./tokens.js";
import type {
  Change,
  Component,
  ComponentContext,
  IncomingRequest,
  MessagesComponent,
  MessagesView,
} from "./types.js";

export type Registry = { readonly [N in ComponentName]?: Component<N> };

export interface PipelineDeps {
  readonly registry: Registry;
  readonly tokens: TokenCounter;
  readonly memo: OutputMemo;
  /** Content id of a text (§6): SHA-256 prefix, or HMAC under the deployment key. */
  readonly hash: (text: string) => string;
}

export interface RunRequest {
  readonly transcript: Transcript;
  readonly names: readonly ComponentName[];
  readonly config: Config;
  /** Whether the store keeps originals (reformat records and stashes are written only then). */
  readonly persists: boolean;
  /**
   * Whether the model can call the expand tool on this request (§8.1): full markers are written
   * only then; otherwise full mode acts as off.
   */
  readonly expandable: boolean;
  /**
   * What each already-sent output was returned as (§4a), parallel to `transcript.outputs`:
   * replayed, never decided again. Undefined for an output this session has not been sent.
   */
  readonly frozen: readonly (Decision | undefined)[];
  /** The summary the request's messages were sent with, to give back on a warm request. */
  readonly frozenSummary?: { readonly from: number; readonly to: number } | undefined;
  /** Whether components that reach back decide now: the head may be re-decided (a cold cache). */
  readonly redecide: boolean;
  /** Content ids of originals the model expanded: new decisions keep them verbatim. */
  readonly kept: ReadonlySet<string>;
  /**
   * Set when the store could not keep this request's originals: outputs still larger than this
   * many bytes are cut one-way with a visible note (one-way.ts) rather than sent on unreduced.
   */
  readonly oneWayAbove?: number | undefined;
  /** Why the store could not keep them (for the report). */
  readonly oneWayReason?: OneWayReason | undefined;
  readonly signal: AbortSignal;
  /** The request's own model and credentials, for LLM-backed components (`source: incoming`). */
  readonly incoming?: IncomingRequest | undefined;
  /** The request's messages, built on demand for messages-scoped components (summaries). */
  readonly messages?: (() => MessagesView) | undefined;
}

export interface RunResult {
  /** The final text of every tool output, parallel to `transcript.outputs`. */
  readonly texts: readonly string[];
  /**
   * Everything that must be acknowledged by the store before any marker is written, each with
   * the received messages that hold it (its records are scoped to their returned conversation).
   */
  readonly stashes: readonly PendingStash[];
  /** What made each output what it is returned as, parallel to `transcript.outputs`. */
  readonly decisions: readonly Decision[];
  /** Markers and summary sentinels written (replays included). */
  readonly markers: number;
  /** Ids of the full markers written or replayed: the only ids this request may resolve. */
  readonly markerIds: readonly string[];
  /** Outputs whose recorded decision was replayed. */
  readonly replayed: number;
  readonly report: RunReport;
  /** A run of whole messages replaced by one (its tool outputs keep their received text). */
  readonly replacement?: AcceptedReplacement;
}

/**
 * Runs the configured components in order over the tool outputs (§4, §4a). Already-sent outputs
 * replay what they were returned as; the others take new decisions, from components that reach
 * back only when the head may be re-decided. The pipeline owns every guard: a component that
 * throws, drops content in full mode without a cache key, or makes the request larger is
 * reverted alone and the run goes on; a change that does not strictly save tokens is dropped;
 * outputs that carry a marker or were expanded are never compacted again; an output another
 * points to stays readable.
 */
export async function runPipeline(deps: PipelineDeps, request: RunRequest): Promise<RunResult> {
  const held = new Set<number>();
  for (;;) {
    const { result, state } = await runOnce(deps, request, held);
    const ambiguous = ambiguousRecords(request.transcript, state, result.replacement);
    if (ambiguous.size === 0) return result;
    // Each pass holds at least one more output verbatim, so this ends.
    for (const index of ambiguous) held.add(index);
  }
}

/** Full mode acts as off without a store that keeps originals, or a model that can expand. */
export function effectiveMode(mode: MarkerMode, expandable: boolean): MarkerMode {
  return mode === "full" && !expandable ? "off" : mode;
}

async function runOnce(
  deps: PipelineDeps,
  request: RunRequest,
  held: ReadonlySet<number>,
): Promise<{ result: RunResult; state: OutputState }> {
  const { transcript, config } = request;
  const state = new OutputState(transcript, deps.hash);
  const report: RunReport = { components: [] };
  // One report entry per pipeline position; a replayed component's entry is taken over by its
  // first position, so a replay and a new decision of one component are reported together.
  const replayEntries = new Map<ComponentName, ComponentReport>();
  const entryFor = (
    name: ComponentName,
    kind: Component["kind"] | undefined,
    replaying: boolean,
  ) => {
    const replayed = replayEntries.get(name);
    if (replayed && replaying) return replayed;
    if (replayed) {
      replayEntries.delete(name);
      return replayed;
    }
    const entry = newEntry(name, kind ?? "reformat", modeOf(request, name));
    report.components.push(entry);
    if (replaying) replayEntries.set(name, entry);
    return entry;
  };
  const frozen = (index: number) => !request.redecide && request.frozen[index] !== undefined;
  // An expanded original is named by its content id: the text as received, or as a reformat left it.
  const keptVerbatim = (index: number) =>
    request.kept.size > 0 &&
    (request.kept.has(deps.hash(state.received[index] as string)) ||
      request.kept.has(deps.hash(state.current[index] as string)));
  const isProtected = (index: number) =>
    state.offloaded[index] || state.carries[index] || held.has(index) || keptVerbatim(index);

  const replayed = await replay(deps, request, state, entryFor, (index) => !held.has(index));
  let requestTokens: number | undefined;
  let replacement: AcceptedReplacement | undefined;
  let view: MessagesView | undefined;

  for (const name of request.names) {
    const component = deps.registry[name] as Component | undefined;
    const entry = entryFor(name, component?.kind, false);
    const options = config.components[name];
    const { trigger } = options;
    if (!component) {
      entry.gated = "unavailable";
      continue;
    }
    const warmReplay = component.scope === "messages" && request.frozenSummary !== undefined;
    if (component.reachesBack && !request.redecide && !warmReplay) {
      entry.gated = "warm";
      continue;
    }
    if (trigger.min_messages > 0 && transcript.messageCount < trigger.min_messages) {
      entry.gated = "min_messages";
      continue;
    }
    if (trigger.min_request_tokens > 0) {
      requestTokens ??= transcript.strings.reduce(
        (sum, s) => sum + deps.tokens.estimate(s.text),
        0,
      );
      if (requestTokens < trigger.min_request_tokens) {
        entry.gated = "min_request_tokens";
        continue;
      }
    }

    const started = performance.now();
    const pending = new Map<string, string>();
    const eligible = state.current.map(
      (text, index) =>
        !frozen(index) &&
        !isProtected(index) &&
        !(component.kind === "offload" && state.pointedTo.has(index)) &&
        !isExcluded(transcript.outputs[index]?.call?.name, config, name) &&
        (trigger.min_output_tokens === 0 || deps.tokens.atLeast(text, trigger.min_output_tokens)),
    );
    const mayChange = (index: number) => eligible[index] === true;
    const context = componentContext(deps, request, state, entry, entry.mode, mayChange, pending);
    try {
      if (component.scope === "messages") {
        if (replacement) throw new Revert("touched_protected_output", "messages already replaced");
        view ??= request.messages?.();
        if (!view) {
          entry.gated = "unavailable";
          continue;
        }
        const accepted = await replaceMessages(
          deps,
          request,
          state,
          component,
          context,
          view,
          entry,
          pending,
        );
        if (accepted) {
          replacement = accepted.replacement;
          // The summary is returned as one message where the span began.
          for (const [key, value] of accepted.stashes) {
            state.stash(key, value, accepted.replacement.from);
          }
          if (entry.mode !== "off") state.markers++;
          if (entry.mode === "full") for (const id of entry.keys) state.markerIds.add(id);
          for (const output of transcript.outputs) {
            if (output.messageIndex < replacement.from || output.messageIndex >= replacement.to) {
              continue;
            }
            state.current[output.index] = state.received[output.index] as string;
            state.offloaded[output.index] = true;
          }
        }
      } else {
        const proposed = await proposeChanges(
          deps,
          component,
          options,
          entry.mode,
          context,
          pending,
        );
        // A pointer is kept only while the output it points to is readable (§5 Fidelity).
        const changes = proposed.filter(
          (change) => change.refersTo === undefined || !state.offloaded[change.refersTo],
        );
        const guard = guardFor(deps, state, component.kind, entry.mode, mayChange, pending);
        const kept = guardChanges(guard, changes, entry);
        for (const change of kept) {
          state.apply(change.index, change.text, {
            name,
            kind: component.kind,
            mode: entry.mode,
            pending,
            entry,
          });
          if (change.refersTo !== undefined) state.pointedTo.add(change.refersTo);
        }
        entry.changed += kept.length;
      }
    } catch (error) {
      entry.reverted =
        error instanceof Revert
          ? { reason: error.reason, detail: error.message }
          : { reason: "threw", detail: error instanceof Error ? error.message : String(error) };
      entry.keys = [];
      entry.tokensBefore = entry.tokensAfter = 0;
    }
    entry.durationMs += performance.now() - started;
  }

  if (request.persists && config.marker_mode === "full") state.recordReformats();
  if (request.oneWayAbove !== undefined) {
    const cut = cutOneWay(state.current, request.oneWayAbove);
    if (cut > 0) report.oneWay = { outputs: cut, reason: request.oneWayReason ?? "unavailable" };
  }
  return {
    result: {
      texts: state.current,
      stashes: [...state.stashes.values()],
      decisions: state.decisions(),
      markers: state.markers,
      markerIds: [...state.markerIds],
      replayed,
      report,
      ...(replacement ? { replacement } : {}),
    },
    state,
  };
}

/**
 * Gives already-sent outputs back as they were returned (§4a): each recorded component runs
 * again on that output alone, in the recorded order, under the same guards. A step that no
 * longer reproduces a change (its component or options went away) ends that output's replay.
 */
async function replay(
  deps: PipelineDeps,
  request: RunRequest,
  state: OutputState,
  entryFor: (
    name: ComponentName,
    kind: Component["kind"] | undefined,
    replaying: boolean,
  ) => ComponentReport,
  replayable: (index: number) => boolean,
): Promise<number> {
  if (request.redecide) return 0;
  let replayed = 0;
  // One view of the outputs for every replay, brought up to date as each change is applied.
  const outputs = currentOutputs(request, state);
  for (const [index, decision] of request.frozen.entries()) {
    if (decision === undefined || !replayable(index)) continue;
    replayed++;
    for (const name of decision) {
      const component = deps.registry[name] as Component | undefined;
      if (!component || component.scope === "messages") break;
      const entry = entryFor(name, component.kind, true);
      const options = request.config.components[name];
      const pending = new Map<string, string>();
      const only = (candidate: number) => candidate === index;
      const context = componentContext(
        deps,
        request,
        state,
        entry,
        entry.mode,
        only,
        pending,
        outputs,
      );
      const output = outputs[index] as ToolOutput;
      const text =
        component.scope === "output"
          ? await reduceOutput(deps, component, options, entry.mode, context, pending, output)
          : // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
            component.reduce(output, options as any, context);
      if (text === undefined || text === output.text) break;
      const guard = guardFor(deps, state, component.kind, entry.mode, only, pending);
      let kept: Change[];
      try {
        kept = guardChanges(guard, [{ index, text }], entry);
      } catch {
        break;
      }
      if (kept.length === 0) break;
      state.apply(index, text, { name, kind: component.kind, mode: entry.mode, pending, entry });
      outputs[index] = currentOutput(request, state, index);
    }
  }
  return replayed;
}

function guardFor(
  deps: PipelineDeps,
  state: OutputState,
  kind: Component["kind"],
  mode: MarkerMode,
  mayChange: (index: number) => boolean,
  pending: ReadonlyMap<string, string>,
) {
  return {
    tokens: deps.tokens,
    kind,
    mode,
    current: state.current,
    classes: state.classes,
    mayChange,
    pending,
  };
}

/** The changes a component proposes for the outputs it may change. */
async function proposeChanges(
  deps: PipelineDeps,
  component: Exclude<Component, { scope: "messages" }>,
  options: Config["components"][ComponentName],
  mode: MarkerMode,
  context: ComponentContext,
  pending: Map<string, string>,
): Promise<Change[]> {
  const changes: Change[] = [];
  if (component.scope === "request") {
    // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
    const selections = await component.select(options as any, context);
    for (const { index, refersTo } of selections) {
      const output = context.outputs[index];
      if (!output || !context.mayChange(index)) continue;
      // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
      const text = component.reduce(output, options as any, context);
      if (text !== undefined && text !== output.text) changes.push({ index, text, refersTo });
    }
    return changes;
  }
  for (const output of context.outputs) {
    if (!context.mayChange(output.index)) continue;
    const text = await reduceOutput(deps, component, options, mode, context, pending, output);
    if (text !== undefined && text !== output.text) changes.push({ index: output.index, text });
  }
  return changes;
}

/**
 * An output-scoped component's result for one output, memoised across requests by (component,
 * mode, text, call): such a result is a pure function of those. The memo also keeps what the
 * result asked to stash, so a hit hands the same stashes to `pending`.
 */
async function reduceOutput(
  deps: PipelineDeps,
  component: Extract<Component, { scope: "output" }>,
  options: Config["components"][ComponentName],
  mode: MarkerMode,
  context: ComponentContext,
  pending: Map<string, string>,
  output: ToolOutput,
): Promise<string | undefined> {
  const table = `${component.name}\u0000${mode}`;
  const callKey = callKeyOf(output);
  const known = deps.memo.get(table, output.text, callKey);
  if (known) {
    for (const { key, value } of known.stashes) pending.set(key, value);
    return known.text;
  }
  // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
  const text = await component.reduce(output, options as any, context);
  // What the result's markers stand for, however `pending` came to hold it (another output of
  // this run may have asked for the same original first).
  const stashes: StashEntry[] = [];
  for (const key of new Set(text === undefined ? [] : markerIds(text))) {
    const value = pending.get(key);
    if (value !== undefined) stashes.push({ key, value });
  }
  deps.memo.set(table, output.text, callKey, { text, stashes });
  return text;
}

/**
 * A messages-scoped component's replacement, through the message guards. On a warm request only
 * the summary the messages were sent with is accepted back (§4a).
 */
async function replaceMessages(
  deps: PipelineDeps,
  request: RunRequest,
  state: OutputState,
  component: MessagesComponent<ComponentName>,
  context: ComponentContext,
  view: MessagesView,
  entry: ComponentReport,
  pending: ReadonlyMap<string, string>,
): Promise<
  { replacement: AcceptedReplacement; stashes: [PendingStash["key"], string][] } | undefined
> {
  const options = request.config.components[component.name];
  // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
  const proposed = await component.reduce(options as any, context, view);
  if (!proposed) return undefined;
  const recorded = request.frozenSummary;
  if (!request.redecide && (proposed.from !== recorded?.from || proposed.to !== recorded?.to)) {
    return undefined;
  }
  const guarded = guardReplacement(
    {
      transcript: request.transcript,
      view,
      mode: entry.mode,
      tokens: deps.tokens,
      hash: deps.hash,
      pending,
      keepsVerbatim: (index) =>
        request.kept.size > 0 && request.kept.has(deps.hash(state.received[index] as string)),
    },
    proposed,
    entry,
  );
  return guarded ? { replacement: guarded.accepted, stashes: guarded.stashes } : undefined;
}

/** The effective marker mode of component `name` on this request. */
function modeOf(request: RunRequest, name: ComponentName): MarkerMode {
  const mode = request.config.components[name].marker_mode ?? request.config.marker_mode;
  return effectiveMode(mode, request.persists && request.expandable);
}

function newEntry(name: ComponentName, kind: Component["kind"], mode: MarkerMode): ComponentReport {
  return {
    name,
    kind,
    mode,
    tokensBefore: 0,
    tokensAfter: 0,
    durationMs: 0,
    changed: 0,
    dropped: 0,
    keys: [],
  };
}

/**
 * The memo key of an output's call: what output-scoped components may read of it, the tool's
 * name and the shell command it ran (`command` or `cmd`, a string or an argv array), and the
 * content class decided from the received text.
 */
function callKeyOf(output: ToolOutput): string {
  return `${output.contentClass}\u0000${callOf(output)}`;
}

function callOf(output: ToolOutput): string {
  const { call } = output;
  if (!call) return "";
  const input = call.input as { command?: unknown; cmd?: unknown } | null | undefined;
  const command =
    typeof input === "object" && input !== null ? (input.command ?? input.cmd) : undefined;
  if (command === undefined) return call.name;
  return `${call.name}\u0000${typeof command === "string" ? command : JSON.stringify(command)}`;
}
