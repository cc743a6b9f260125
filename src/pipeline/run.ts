import type { ComponentName, Config } from "../config/schema.js";
import type { Decision } from "../session/ledger.js";
import type { PendingStash } from "../session/records.js";
import type { Transcript } from "../wire/transcript.js";
import type { SlotKind } from "../wire/types.js";
import { ambiguousRecords } from "./ambiguity.js";
import { Bound } from "./bound.js";
import { componentContext } from "./context.js";
import { eligibility } from "./eligibility.js";
import { componentGates } from "./gating.js";
import { type AcceptedReplacement, replaceMessages } from "./messages-step.js";
import { cutOneWay, type OneWay } from "./one-way.js";
import type { OutputMemo } from "./output-memo.js";
import { changeOutputs } from "./output-step.js";
import { replay } from "./replay.js";
import type { ReplayTraces } from "./replay-trace.js";
import type { RunReport } from "./report.js";
import { ReportEntries } from "./report-entries.js";
import { Revert, recordRevert } from "./revert.js";
import { type SlotLane, type SlotLanes, slotLanes } from "./slot-state.js";
import type { TokenCounter } from "./tokens.js";
import type { Component, IncomingRequest, MessagesView } from "./types.js";

export type Registry = { readonly [N in ComponentName]?: Component<N> };

export interface PipelineDeps {
  readonly registry: Registry;
  readonly tokens: TokenCounter;
  readonly memo: OutputMemo;
  /** Content id of a text (§6): SHA-256 prefix, or HMAC under the deployment key. */
  readonly hash: (text: string) => string;
  /**
   * Told what the store's put will likely carry, before it does (Store.stage): the original of
   * each output a run decides anew, as the run starts, and each value as it is stashed (with
   * `id`, the marker id it is stashed under, for an offload's original).
   */
  readonly stage?: ((value: string, id?: string) => void) | undefined;
  /** What replaying each slot did, so a slot a later request re-sends is not replayed again. */
  readonly replays?: ReplayTraces | undefined;
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
   * What each already-sent slot was returned as (§4a), by kind, parallel to the transcript's
   * slots: replayed, never decided again. Undefined for a slot to decide: one this session has
   * not been sent, or every slot of a cold request but those before the message it diverged at.
   */
  readonly frozen: Readonly<Record<SlotKind, readonly (Decision | undefined)[]>>;
  /** The summary the request's messages were sent with, to give back on a warm request. */
  readonly frozenSummary?: { readonly from: number; readonly to: number } | undefined;
  /** Whether components that reach back decide now: the head may be re-decided (a cold cache). */
  readonly redecide: boolean;
  /** Content ids of originals the model expanded: new decisions keep them verbatim. */
  readonly kept: ReadonlySet<string>;
  /**
   * Set when the store could not keep this request's originals: outputs still too big to send
   * on are cut one-way with a visible note (one-way.ts) rather than sent on unreduced.
   */
  readonly oneWay?: OneWay | undefined;
  readonly signal: AbortSignal;
  /** The request's own model and credentials, for LLM-backed components (`source: incoming`). */
  readonly incoming?: IncomingRequest | undefined;
  /** The request's messages, built on demand for messages-scoped components (summaries). */
  readonly messages?: (() => MessagesView) | undefined;
}

export interface RunResult {
  /** The final text of every slot, by kind, parallel to the transcript's slots. */
  readonly texts: Readonly<Record<SlotKind, readonly string[]>>;
  /**
   * Everything that must be acknowledged by the store before any marker is written, each with
   * the received messages that hold it (its records are scoped to their returned conversation).
   */
  readonly stashes: readonly PendingStash[];
  /** What made each slot what it is returned as, by kind, parallel to the transcript's slots. */
  readonly decisions: Readonly<Record<SlotKind, readonly Decision[]>>;
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
    const { result, lanes } = await runOnce(deps, request, held);
    const ambiguous = ambiguousRecords(request.transcript, lanes.output, result.replacement);
    if (ambiguous.size === 0) return result;
    // Each pass holds at least one more output verbatim, so this ends.
    for (const index of ambiguous) held.add(index);
  }
}

/**
 * One pass of the pipeline, as named steps: replay what was sent; decide what is new (each
 * configured component in order, unless gated, over the outputs it may change: a messages-scoped
 * one through the messages step, at most one replacement a run; any other through the output
 * step; one a guard reverts, or that throws, is reverted alone and the run goes on); then the
 * run-wide guards (reformat records for /rehydrate, the one-way cut of outputs the store could
 * not keep) and the result to write back.
 */
async function runOnce(
  deps: PipelineDeps,
  request: RunRequest,
  held: ReadonlySet<number>,
): Promise<{ result: RunResult; lanes: SlotLanes }> {
  const lanes = slotLanes(request.transcript.slots, deps.hash, deps.stage);
  // Changed at all, a slot's original is stashed by the end of the run (an offload's marker or
  // a reformat record holds it): each slot decided anew is told to the store now, while the
  // components run (a long one crosses threads meanwhile; a slot no component changes was told
  // for nothing).
  for (const lane of Object.values(lanes)) {
    for (const { slot } of lane.states) {
      if (request.frozen[lane.kind][slot.index] === undefined) deps.stage?.(slot.text);
    }
  }
  const entries = new ReportEntries(request);
  // Only tool outputs are held verbatim for ambiguous records (ambiguity.ts).
  const heldIn = (lane: SlotLane) => (lane.kind === "output" ? held : NONE_HELD);
  let replayed = 0;
  for (const lane of Object.values(lanes)) {
    const free = (index: number) => !heldIn(lane).has(index);
    // A pass that holds outputs apart replays in full (replay-trace.ts).
    const traces = held.size === 0 ? deps.replays : undefined;
    replayed += await replay(deps, request, lane, entries, free, traces);
  }
  const gateOf = componentGates(deps, request);
  const eligibleFor = eligibility(deps, request, (lane) => heldIn(lane));
  const bound = boundOf(deps, request, lanes.output, entries, gateOf);
  let replacement: AcceptedReplacement | undefined;
  let view: MessagesView | undefined;
  for (const [position, name] of request.names.entries()) {
    const component = deps.registry[name] as Component | undefined;
    const entry = entries.entryFor(name, component?.kind, false);
    const gate = gateOf(name, component);
    if (gate !== undefined || !component) {
      entry.gated = gate ?? "unavailable";
      continue;
    }
    const started = performance.now();
    const pending = new Map<string, string>();
    const lane = lanes[laneOf(component)];
    const mayChange = eligibleFor(lane, name, component);
    const context = componentContext(deps, request, lane, entry, entry.mode, mayChange, pending);
    const options = request.config.components[name];
    try {
      if (component.scope === "messages") {
        if (replacement) throw new Revert("touched_protected_output", "messages already replaced");
        view ??= request.messages?.();
        if (!view) {
          entry.gated = "unavailable";
          continue;
        }
        replacement = await replaceMessages(
          deps,
          request,
          lanes.output,
          component,
          context,
          view,
          entry,
          pending,
        );
      } else {
        const bounded = bound !== undefined && bound.position > position && lane.kind === "output";
        const later = bounded ? bound.bound : undefined;
        await changeOutputs(deps, lane, name, component, options, entry, context, pending, later);
      }
    } catch (error) {
      recordRevert(entry, error);
    }
    entry.durationMs += performance.now() - started;
  }
  const { report } = entries;
  if (request.persists && request.config.marker_mode === "full") {
    for (const lane of Object.values(lanes)) lane.recordReformats();
  }
  const texts = { output: lanes.output.texts(), call: lanes.call.texts() };
  const { oneWay } = request;
  if (oneWay !== undefined) {
    const offloaded = lanes.output.states.map((state) => state.offloaded);
    const reduced = oneWay.all ? offloaded.filter(Boolean).length : 0;
    // An output an offload reduced that is still too big is cut too, and counted once.
    const cut = cutOneWay(texts.output, oneWay.above, offloaded);
    const outputs = reduced + cut;
    if (outputs > 0) report.oneWay = { outputs, reason: oneWay.reason };
  }
  const { book } = lanes.output;
  return {
    result: {
      texts,
      stashes: [...book.stashes.values()],
      decisions: { output: lanes.output.decisions(), call: lanes.call.decisions() },
      markers: book.markers,
      markerIds: [...book.markerIds],
      replayed,
      report,
      ...(replacement ? { replacement } : {}),
    },
    lanes,
  };
}

const NONE_HELD: ReadonlySet<number> = new Set();

/** The lane of the slots a component takes: tool outputs unless it says otherwise. */
function laneOf(component: Component): SlotKind {
  return component.scope === "messages" ? "output" : (component.slots ?? "output");
}

/**
 * The first component of the pipeline that bounds an output's size (bound.ts), with its
 * position, when it runs on this request: offloads before it may be composed with it.
 */
function boundOf(
  deps: PipelineDeps,
  request: RunRequest,
  lane: SlotLane,
  entries: ReportEntries,
  gateOf: ReturnType<typeof componentGates>,
): { readonly position: number; readonly bound: Bound } | undefined {
  const position = request.names.findIndex((name) => deps.registry[name]?.bounds === true);
  const name = request.names[position];
  if (name === undefined || gateOf(name, deps.registry[name]) !== undefined) return undefined;
  const bound = Bound.of(deps, request, lane, name, () => entries.entryFor(name, "offload", true));
  return bound && { position, bound };
}
