import type { ComponentName, Config, MarkerMode } from "../config/schema.js";
import { carriesMarker, EXPAND_HINT, markerFor, markerIds, SENTINEL } from "../expand/markers.js";
import type { StashEntry } from "../store/types.js";
import type { Transcript } from "../wire/transcript.js";
import type { ToolOutput } from "../wire/types.js";
import { type AcceptedReplacement, guardReplacement } from "./messages-step.js";
import type { OutputMemo } from "./output-memo.js";
import type { ComponentReport, RunReport } from "./report.js";
import { Revert } from "./revert.js";
import { keepsAnyVerbatim, keepVerbatimId, reducedId } from "./sticky.js";
import type { TokenCounter } from "./tokens.js";
import type {
  Change,
  Component,
  ComponentContext,
  IncomingRequest,
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
  /** Whether the store keeps what is put (full marker mode degrades to off when it does not). */
  readonly persists: boolean;
  /** The session's sticky set (§7). */
  readonly sticky: ReadonlySet<string>;
  readonly signal: AbortSignal;
  /** The request's own model and credentials, for LLM-backed components (`source: incoming`). */
  readonly incoming?: IncomingRequest | undefined;
  /** The request's messages, built on demand for messages-scoped components (summaries). */
  readonly messages?: (() => MessagesView) | undefined;
}

export interface RunResult {
  /** The final text of every tool output, parallel to `transcript.outputs`. */
  readonly texts: readonly string[];
  /** Everything that must be acknowledged by the store before any marker is written. */
  readonly stashes: readonly StashEntry[];
  /** Sticky ids to remember for the session. */
  readonly reduced: readonly string[];
  /** Full markers written. */
  readonly markers: number;
  readonly report: RunReport;
  /** A run of whole messages replaced by one (its tool outputs keep their received text). */
  readonly replacement?: AcceptedReplacement;
}

/**
 * Runs the configured components in order over the tool outputs (§4). The pipeline owns every
 * guard: a component that throws, drops content in full mode without a cache key, or makes the
 * request larger is reverted alone and the run goes on; a change that does not strictly save
 * tokens is dropped; outputs that carry a marker or were expanded are never compacted again.
 */
export async function runPipeline(deps: PipelineDeps, request: RunRequest): Promise<RunResult> {
  const held = new Set<number>();
  for (;;) {
    const { result, records } = await runOnce(deps, request, held);
    const ambiguous = ambiguousRecords(request.transcript, result, records);
    if (ambiguous.size === 0) return result;
    // Each pass holds at least one more output verbatim, so this ends.
    for (const index of ambiguous) held.add(index);
  }
}

/** What /rehydrate will look up for each output besides its final text. */
interface OutputRecords {
  /** The text an offload stashed (its marker's content), per offloaded output. */
  readonly stashedAs: readonly (string | undefined)[];
  /** The text an `rf:` record names this output's original by, per output that has one. */
  readonly reformatted: readonly (string | undefined)[];
}

async function runOnce(
  deps: PipelineDeps,
  request: RunRequest,
  held: ReadonlySet<number>,
): Promise<{ result: RunResult; records: OutputRecords }> {
  const { transcript, config, persists, sticky } = request;
  const received = transcript.outputs.map((output) => output.text);
  const current = [...received];
  const offloaded = received.map(() => false);
  const stashedAs: (string | undefined)[] = received.map(() => undefined);
  const reformatted: (string | undefined)[] = received.map(() => undefined);
  const stashes = new Map<string, string>();
  const reduced: string[] = [];
  const report: RunReport = { components: [] };
  const keepsSome = keepsAnyVerbatim(sticky);
  let markers = 0;
  let requestTokens: number | undefined;
  let replacement: AcceptedReplacement | undefined;
  let view: MessagesView | undefined;

  // Whether each output's current text carries a marker; kept up to date as texts change.
  const carries = received.map((text) => carriesMarker(text));
  const isProtected = (index: number): boolean => {
    if (offloaded[index] || carries[index] || held.has(index)) return true;
    return keepsSome && sticky.has(keepVerbatimId(deps.hash(current[index] as string)));
  };

  for (const name of request.names) {
    const component = deps.registry[name] as Component | undefined;
    const options = config.components[name];
    const mode = effectiveMode(options.marker_mode ?? config.marker_mode, persists);
    const entry: ComponentReport = {
      name,
      kind: component?.kind ?? "reformat",
      mode,
      tokensBefore: 0,
      tokensAfter: 0,
      durationMs: 0,
      changed: 0,
      dropped: 0,
      keys: [],
    };
    report.components.push(entry);
    const { trigger } = options;
    if (!component) {
      entry.gated = "unavailable";
      continue;
    }
    if (trigger.min_messages > 0 && transcript.messageCount < trigger.min_messages) {
      entry.gated = "min_messages";
      continue;
    }
    if (trigger.min_request_tokens > 0) {
      requestTokens ??= transcript.strings.reduce((sum, s) => sum + deps.tokens.count(s.text), 0);
      if (requestTokens < trigger.min_request_tokens) {
        entry.gated = "min_request_tokens";
        continue;
      }
    }

    const started = performance.now();
    const pending = new Map<string, string>();
    const eligible = current.map(
      (text, index) =>
        !isProtected(index) &&
        (trigger.min_output_tokens === 0 || deps.tokens.atLeast(text, trigger.min_output_tokens)),
    );
    const context = componentContext(deps, request, entry, mode, current, eligible, pending);
    try {
      if (component.scope === "messages") {
        if (replacement) throw new Revert("touched_protected_output", "messages already replaced");
        view ??= request.messages?.();
        if (!view) {
          entry.gated = "unavailable";
          continue;
        }
        // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
        const proposed = await component.reduce(options as any, context, view);
        const guarded =
          proposed &&
          guardReplacement(
            {
              transcript,
              view,
              mode,
              tokens: deps.tokens,
              hash: deps.hash,
              pending,
              keepsVerbatim: (index) =>
                keepsSome && sticky.has(keepVerbatimId(deps.hash(received[index] as string))),
            },
            proposed,
            entry,
          );
        if (guarded) {
          replacement = guarded.accepted;
          for (const [key, value] of guarded.stashes) stashes.set(key, value);
          if (mode === "full") markers++;
          for (const output of transcript.outputs) {
            if (output.messageIndex < replacement.from || output.messageIndex >= replacement.to) {
              continue;
            }
            current[output.index] = received[output.index] as string;
            offloaded[output.index] = true;
          }
        }
      } else {
        const changes = await collectChanges(
          deps,
          component,
          options,
          mode,
          context,
          eligible,
          pending,
        );
        const kept = guardChanges(
          deps,
          component.kind,
          mode,
          changes,
          current,
          eligible,
          pending,
          entry,
        );
        for (const change of kept) {
          const before = current[change.index] as string;
          if (component.kind === "offload") {
            offloaded[change.index] = true;
            reduced.push(reducedId(name, deps.hash(before)));
            if (mode === "full") {
              for (const id of new Set(markerIds(change.text))) {
                const original = pending.get(id);
                if (original === undefined) continue;
                stashes.set(id, original);
                entry.keys.push(id);
                markers++;
              }
              const first = received[change.index] as string;
              stashedAs[change.index] = before;
              if (before !== first) {
                stashes.set(`rf:${deps.hash(before)}`, first);
                reformatted[change.index] = before;
              }
            }
          }
          current[change.index] = change.text;
          carries[change.index] = component.kind === "offload" || carriesMarker(change.text);
        }
        entry.changed = kept.length;
      }
    } catch (error) {
      entry.reverted =
        error instanceof Revert
          ? { reason: error.reason, detail: error.message }
          : { reason: "threw", detail: error instanceof Error ? error.message : String(error) };
      entry.keys = [];
      entry.tokensBefore = entry.tokensAfter = 0;
    }
    entry.durationMs = performance.now() - started;
  }

  if (persists && effectiveMode(config.marker_mode, persists) === "full") {
    current.forEach((text, index) => {
      const first = received[index] as string;
      if (!offloaded[index] && text !== first) {
        stashes.set(`rf:${deps.hash(text)}`, first);
        reformatted[index] = text;
      }
    });
  }

  return {
    result: {
      texts: current,
      stashes: Array.from(stashes, ([key, value]) => ({ key, value })),
      reduced,
      markers,
      report,
      ...(replacement ? { replacement } : {}),
    },
    records: { stashedAs, reformatted },
  };
}

/**
 * Outputs whose `rf:` record would make /rehydrate give back the wrong original. Rehydrate finds
 * a reformatted output's original by the hash of its text alone, so each such text must stand for
 * one original wherever it is read: two different outputs that clean up to the same text, or a
 * cleaned text that another string of the body (or an offloaded output's stashed text) reads
 * verbatim, are ambiguous. The later claimant, or the one whose record would mislead, is named.
 */
function ambiguousRecords(
  transcript: Transcript,
  { texts, replacement }: RunResult,
  { stashedAs, reformatted }: OutputRecords,
): Set<number> {
  const received = transcript.outputs.map((output) => output.text);
  const ambiguous = new Set<number>();
  const claims = new Map<string, number>();
  reformatted.forEach((text, index) => {
    if (text === undefined) return;
    const owner = claims.get(text);
    if (owner === undefined) claims.set(text, index);
    else if (received[owner] !== received[index]) ambiguous.add(index);
  });
  if (claims.size === 0) return ambiguous;
  const misleads = (text: string | undefined, original: string) => {
    const owner = text === undefined ? undefined : claims.get(text);
    if (owner !== undefined && received[owner] !== original) ambiguous.add(owner);
  };
  let output = 0;
  for (const item of transcript.strings) {
    const index = item.tool ? output++ : undefined;
    const replaced =
      replacement !== undefined &&
      item.messageIndex >= replacement.from &&
      item.messageIndex < replacement.to;
    if (replaced) continue;
    if (index === undefined) {
      misleads(item.text, item.text);
      continue;
    }
    const original = received[index] as string;
    misleads(texts[index], original);
    misleads(stashedAs[index], original);
  }
  return ambiguous;
}

export function effectiveMode(mode: MarkerMode, persists: boolean): MarkerMode {
  return mode === "full" && !persists ? "off" : mode;
}

function componentContext(
  deps: PipelineDeps,
  request: RunRequest,
  entry: ComponentReport,
  mode: MarkerMode,
  current: readonly string[],
  eligible: readonly boolean[],
  pending: Map<string, string>,
): ComponentContext {
  const { transcript, sticky } = request;
  const outputs: ToolOutput[] = transcript.outputs.map((output, index) =>
    output.text === current[index] ? output : { ...output, text: current[index] as string },
  );
  return {
    provider: transcript.provider,
    outputs: outputs.filter((_, index) => eligible[index]),
    messageCount: transcript.messageCount,
    goal: transcript.goal,
    mode,
    hint: mode === "full" ? EXPAND_HINT : "",
    marker(original) {
      if (mode === "off") return "";
      if (mode === "summary") return SENTINEL;
      const id = deps.hash(original);
      pending.set(id, original);
      return markerFor(id);
    },
    tokens: (text) => deps.tokens.count(text),
    atLeastTokens: (text, limit) => deps.tokens.atLeast(text, limit),
    wasReduced: (text) => sticky.has(reducedId(entry.name, deps.hash(text))),
    signal: request.signal,
    ...(request.incoming ? { incoming: request.incoming } : {}),
    reportModelCall(call) {
      entry.modelCalls ??= [];
      entry.modelCalls.push(call);
    },
  };
}

async function collectChanges(
  deps: PipelineDeps,
  component: Exclude<Component, { scope: "messages" }>,
  options: Config["components"][ComponentName],
  mode: MarkerMode,
  context: ComponentContext,
  eligible: readonly boolean[],
  pending: Map<string, string>,
): Promise<readonly Change[]> {
  if (component.scope === "request") {
    // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
    return component.reduce(options as any, context);
  }
  const changes: Change[] = [];
  const table = `${component.name}\u0000${mode}`;
  for (const output of context.outputs) {
    if (!eligible[output.index]) continue;
    const callKey = callKeyOf(output);
    let memoised = deps.memo.get(table, output.text, callKey);
    if (!memoised) {
      const before = new Set(pending.keys());
      // biome-ignore lint/suspicious/noExplicitAny: options are the component's own, by registry key
      const text = await component.reduce(output, options as any, context);
      const stashes = [...pending].filter(([id]) => !before.has(id));
      memoised = { text, stashes: stashes.map(([key, value]) => ({ key, value })) };
      deps.memo.set(table, output.text, callKey, memoised);
    } else {
      for (const { key, value } of memoised.stashes) pending.set(key, value);
    }
    if (memoised.text !== undefined && memoised.text !== output.text) {
      changes.push({ index: output.index, text: memoised.text });
    }
  }
  return changes;
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

/** Applies the per-change guards; throws Revert when the whole component must be reverted. */
function guardChanges(
  deps: PipelineDeps,
  kind: Component["kind"],
  mode: MarkerMode,
  changes: readonly Change[],
  current: readonly string[],
  eligible: readonly boolean[],
  pending: ReadonlyMap<string, string>,
  entry: ComponentReport,
): Change[] {
  const kept: Change[] = [];
  const seen = new Set<number>();
  let before = 0;
  let after = 0;
  for (const change of changes) {
    const { index, text } = change;
    if (
      !Number.isInteger(index) ||
      !eligible[index] ||
      seen.has(index) ||
      typeof text !== "string"
    ) {
      throw new Revert(
        "touched_protected_output",
        `change to output ${String(index)} is not allowed`,
      );
    }
    seen.add(index);
    if (kind === "offload" && mode === "full" && !markerIds(text).some((id) => pending.has(id))) {
      throw new Revert("no_cache_key", `output ${index} was reduced without a stashed marker`);
    }
    const tokensBefore = deps.tokens.count(current[index] as string);
    const tokensAfter = deps.tokens.count(text);
    if (tokensAfter >= tokensBefore) {
      entry.dropped++;
      continue;
    }
    before += tokensBefore;
    after += tokensAfter;
    kept.push(change);
  }
  if (after > before) throw new Revert("grew", `tokens ${before} → ${after}`);
  entry.tokensBefore = before;
  entry.tokensAfter = after;
  return kept;
}
