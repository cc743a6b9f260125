import type { CacheTreatment } from "../cache/policy.js";
import type { ComponentName, Config } from "../config/schema.js";
import { expandAbility } from "../expand/inject.js";
import type { OneWay } from "../pipeline/one-way.js";
import { runPipeline } from "../pipeline/run.js";
import { REQUEST_EXACT_CHARS } from "../pipeline/tokens.js";
import { messagesView } from "../wire/message-views.js";
import { toolsDecided } from "./expand-tool.js";
import type { Passthrough } from "./options.js";
import { planOptions } from "./stash-memo.js";
import {
  type CompactContext,
  type Decided,
  type History,
  NOTHING_FROZEN,
  type ParsedRequest,
} from "./turn.js";
import { writeBack } from "./write-back.js";

/** The signal of a compaction that was given none: nothing ever aborts it. */
const NEVER_ABORTED = new AbortController().signal;

/** How a request is decided beyond its treatment: other components, or a one-way cut. */
export interface DecideOptions {
  readonly names?: readonly ComponentName[];
  /** The store could not keep this request's originals (pipeline/one-way.ts). */
  readonly oneWay?: OneWay;
}

/**
 * The body a request gets under `treatment` (§4, §4a): the pipeline run — what was sent given
 * back as it was returned, what is new decided, components that reach back only where the head
 * may be re-decided — and its changes written back.
 */
export async function decide(
  context: CompactContext,
  request: ParsedRequest,
  history: History,
  treatment: CacheTreatment,
  { names = request.names, oneWay }: DecideOptions = {},
): Promise<Decided | { bail: Passthrough }> {
  const { config, store, memos, registry } = context;
  const { options, shape, body } = request;
  // Nothing of a request reduced one-way throughout is kept: as with a store that keeps nothing.
  const persists = store.persists && oneWay?.all !== true;
  const redecide = treatment.state === "cold";
  const { head } = history;
  // A cold request re-decides what it gives back, save the messages before it diverged.
  const replays = !redecide || treatment.reason === "diverged";
  const ability = expandAbility(config.inject_expand, persists, body.tools, body.tool_choice);
  // Full markers need a model that can expand them: the tool is added only where the tools are
  // decided (a session's first request, a cold one), so a warm request without it acts as off.
  // The agent's own compaction gives its conversation back as it was sent, markers included.
  const expandable = history.agentCompaction
    ? head?.tool === true || (ability.able && ability.declared)
    : ability.able && (ability.declared || toolsDecided(history, treatment) || head?.tool === true);
  const frozen = replays ? history.frozen : NOTHING_FROZEN;
  // An original the session already stashed stays out of the put (commit.ts), so it is not
  // sent ahead of it either.
  const stashed = planOptions(request, history);
  const stage = (value: string, id?: string) => {
    const held =
      id !== undefined &&
      memos.stashed.holds(request.session, { key: id, value }, history.now, stashed);
    if (!held) store.stage?.(value);
  };
  const run = await runPipeline(
    {
      registry,
      tokens: request.tokens,
      memo: memos.outputs,
      hash: request.hash,
      // A body past the exact counts a request makes counts some texts by its own rate
      // (pipeline/tokens.ts), so its guards are its own: it replays in full.
      replays: request.text.length <= REQUEST_EXACT_CHARS ? memos.replays : undefined,
      // Originals are stashed only with full markers (reformat records included).
      stage:
        persists && config.marker_mode === "full" && store.stage && !options.dryRun
          ? stage
          : undefined,
    },
    {
      transcript: request.transcript,
      names,
      config,
      persists,
      expandable,
      frozen,
      frozenSummary:
        redecide || history.through < (head?.messages ?? 0) ? undefined : head?.summary,
      redecide,
      kept: history.ledger.kept,
      oneWay,
      signal: options.signal ?? NEVER_ABORTED,
      incoming: {
        provider: shape.upstream.family,
        model: options.incoming?.model ?? (typeof body.model === "string" ? body.model : undefined),
        headers: options.incoming?.headers ?? {},
        baseUrl: config.upstream[shape.upstream.family].base_url,
      },
      // Where messages are never replaced, messages-scoped components are unavailable.
      messages: shape.summaryMessage
        ? () => messagesView(shape, request.messages, request.scan, request.text)
        : undefined,
    },
  );
  const written = writeBack(request, run);
  if ("bail" in written) return written;
  const degraded =
    !expandable && persists && usesFullMarkers(config, names)
      ? ability.able
        ? "tool_absent"
        : ability.reason
      : undefined;
  return { run, ability, degraded, ...written };
}

/** Whether any component of the pipeline would write full markers given a store and a model. */
function usesFullMarkers(config: Config, names: readonly ComponentName[]): boolean {
  return names.some(
    (name) => (config.components[name].marker_mode ?? config.marker_mode) === "full",
  );
}
