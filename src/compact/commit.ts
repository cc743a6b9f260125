import { nextHistory } from "../cache/break-decision.js";
import type { CacheTreatment } from "../cache/policy.js";
import { StoreCapacityError, StoreEntryTooLargeError } from "../errors/store-error.js";
import type { OneWay } from "../pipeline/one-way.js";
import { printsOf } from "../session/divergence.js";
import { type Head, recordHead } from "../session/ledger.js";
import { scopedEntries } from "../session/records.js";
import type { StashEntry } from "../store/types.js";
import { countPieced, predict, unchanged } from "./answer.js";
import { decide } from "./decide.js";
import { carriesTool, toolsDecided, withExpandTool } from "./expand-tool.js";
import type { CompactResult } from "./options.js";
import { returnedConversation } from "./returned-chain.js";
import { planOptions } from "./stash-memo.js";
import {
  type CompactContext,
  type History,
  NOTHING_FROZEN,
  type Outcome,
  type Turn,
} from "./turn.js";

/**
 * The last step: the ledger's new head and every original to stash that the store may not hold
 * yet, in one acknowledged write (one round trip on Redis), then the answer — with the expand
 * tool where it goes (§8.1). When the write fails nothing is kept, and the answer is the one a
 * store that keeps nothing gives (withoutStash).
 */
export async function commit(
  context: CompactContext,
  turn: Turn,
  outcome: Outcome,
): Promise<CompactResult> {
  const { config, store, memos } = context;
  const { request, history } = turn;
  const { options } = request;
  const { treatment, decided } = outcome;
  const { run } = decided;
  const addTool = carriesTool(decided, config, toolsDecided(history, treatment), history);
  const head = nextHead(turn, outcome, addTool);
  // The agent's own compaction is a side call of the conversation it summarises: it records
  // no head of its own, so the conversation's next request stands on the conversation's.
  const recorded = history.agentCompaction ? undefined : head;
  const ledger = recordHead(history.ledger, history.now, history.chain.at(-1), recorded);
  if (options.commit?.() === false) return unchanged(request, treatment, "abandoned");
  let entries: StashEntry[];
  // Whatever stops the write being made stops it as a failed write would (below).
  try {
    const pending = [...run.stashes, ...decided.spellings];
    entries =
      pending.length === 0
        ? []
        : scopedEntries(pending, returnedConversation(memos.chains, request, history, decided));
  } catch (error) {
    return withoutStash(context, turn, treatment, error);
  }
  const pieced = countPieced(entries, config.store.max_entry_bytes);
  if (pieced > 0) run.report.pieced = pieced;
  const result: CompactResult = {
    text: decided.text,
    changed: decided.text !== request.text,
    provider: request.shape.name,
    session: request.session,
    tokensBefore: request.tokensBefore,
    tokensAfter: decided.tokensAfter,
    markers: run.markers,
    markerIds: run.markerIds,
    cache: treatment,
    prediction: predict(history, treatment),
    replayed: run.replayed,
    ...(outcome.pricedBreak ? { pricedBreak: outcome.pricedBreak } : {}),
    pipelineFallback: request.pipelineFallback,
    report: run.report,
    ...(decided.degraded ? { markersDegraded: decided.degraded } : {}),
  };
  const answer = addTool ? withExpandTool(result, request) : result;
  if (options.dryRun) return answer;
  options.ahead?.(answer);
  // What this compactor put for the session lately is not sent again (stash-memo.ts), while the
  // store still holds the session's ledger: a store that lost it may have lost the rest.
  const kept = store.persists ? entries : [];
  const stash = memos.stashed.plan(
    request.session,
    kept,
    history.now,
    planOptions(request, history),
  );
  try {
    await store.put(request.session, stash.entries, { ledger });
  } catch (error) {
    // Nothing was kept: no marker may stand without its stash (§7), nor may a body this big
    // go on unreduced (§1).
    return withoutStash(context, turn, treatment, error);
  }
  stash.remember();
  return answer;
}

/** The ledger's head for what this request returns (§4a), its cost history moved on. */
function nextHead(turn: Turn, outcome: Outcome, addTool: boolean): Head {
  const { request, history } = turn;
  const { treatment, decided } = outcome;
  const { run } = decided;
  const warm =
    treatment.state === "warm" || treatment.reason === "priced" || treatment.reason === "budget";
  const known = warm && history.head !== undefined;
  return {
    messages: request.messages.length,
    root: history.root,
    prints: printsOf(history.digests),
    tool: decided.ability.able && (decided.ability.declared || addTool),
    outputs: run.decisions.output,
    calls: run.decisions.call,
    ...(run.replacement && decided.summarized
      ? { summary: { from: run.replacement.from, to: run.replacement.to } }
      : {}),
    at: history.now,
    cost: nextHistory(outcome.pricing, history.head?.cost, {
      now: history.now,
      received: request.tokensBefore,
      returned: decided.tokensAfter,
      kept: known ? outcome.kept : 0,
      warm: known,
      cold: !warm,
      broke: treatment.reason === "priced" || treatment.reason === "budget",
    }),
  };
}

/**
 * The answer when the store could not keep the write, with no ledger. The store unavailable:
 * only lossless reformats (§7: its offloads revert). The store unable to hold these originals
 * together (the session's share, the store's bound): nothing would be kept however often it
 * were tried, so the request is reduced one-way throughout (§1: never sent on unreduced
 * because it was big), each drop marked by the non-resolvable sentinel (§6, `summary`). Either
 * way an output still too big to send on is cut one-way with a note (pipeline/one-way.ts).
 */
async function withoutStash(
  context: CompactContext,
  turn: Turn,
  treatment: CacheTreatment,
  error: unknown,
): Promise<CompactResult> {
  const { request, history } = turn;
  const capacity = error instanceof StoreCapacityError || error instanceof StoreEntryTooLargeError;
  const names = capacity
    ? request.names
    : request.names.filter((name) => context.registry[name]?.kind === "reformat");
  const bare: History = { ...history, head: undefined, frozen: NOTHING_FROZEN, through: 0 };
  const oneWay: OneWay = {
    above: context.config.store.max_entry_bytes,
    reason: capacity ? "capacity" : "unavailable",
    all: capacity,
  };
  const decided = await decide(context, request, bare, treatment, { names, oneWay });
  if ("bail" in decided) return unchanged(request, treatment, decided.bail);
  const report = decided.run.report;
  report.stashFailure = error instanceof Error ? error.message : String(error);
  return {
    text: decided.text,
    changed: decided.text !== request.text,
    provider: request.shape.name,
    session: request.session,
    tokensBefore: request.tokensBefore,
    tokensAfter: decided.tokensAfter,
    markers: decided.run.markers,
    markerIds: [],
    cache: treatment,
    replayed: 0,
    pipelineFallback: request.pipelineFallback,
    report,
  };
}
