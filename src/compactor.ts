import { type BreakContext, nextHistory, priceBreak } from "./cache/break-decision.js";
import { readDeploymentLifetime, withDeploymentLifetime } from "./cache/deployment-lifetime.js";
import { acceptEvent, headChange, headEvent, headEventPossible } from "./cache/head-decision.js";
import { estimateHead, tokensPerChar } from "./cache/head-estimate.js";
import { cacheLifetime } from "./cache/lifetime.js";
import type { CachePrediction } from "./cache/observation.js";
import { type CacheState, type CacheTreatment, treatRequest } from "./cache/policy.js";
import { type Pricing, type PricingName, pricingFor, pricingName } from "./cache/pricing.js";
import { type Redecision, Redecisions } from "./cache/redecisions.js";
import { configuredPipeline, pipelineFor } from "./config/presets.js";
import type { ComponentName, Config } from "./config/schema.js";
import { ContentClasses } from "./content/classify.js";
import { StoreCapacityError, StoreEntryTooLargeError } from "./errors/store-error.js";
import { expandAbility, injectExpandTool, type NoExpandReason } from "./expand/inject.js";
import { contentHasher } from "./expand/markers.js";
import { randomHashKey } from "./hash-key/random.js";
import { memoiseHash, rememberLongTexts } from "./pipeline/hash-memo.js";
import type { OneWay } from "./pipeline/one-way.js";
import { OutputMemo } from "./pipeline/output-memo.js";
import type { RunReport } from "./pipeline/report.js";
import { type Registry, type RunResult, runPipeline } from "./pipeline/run.js";
import { TokenCounter } from "./pipeline/tokens.js";
import { isAgentCompaction } from "./session/agent-compaction.js";
import { ChainMemo } from "./session/chain.js";
import { printsOf, standing } from "./session/divergence.js";
import { namesConversation, sessionKey } from "./session/key.js";
import {
  type Decision,
  EMPTY_LEDGER,
  type Head,
  recordHead,
  type SessionLedger,
} from "./session/ledger.js";
import { type PendingStash, scopedEntries } from "./session/records.js";
import { conversationRoot } from "./session/root.js";
import { needsPieces } from "./store/pieces.js";
import type { StashEntry, Store } from "./store/types.js";
import { applyEdits, type Edit } from "./wire/edit.js";
import { isRecord } from "./wire/is-record.js";
import { type BodyScan, scanBody } from "./wire/json-scan.js";
import { hasUnusualEscape } from "./wire/json-string.js";
import { messagesView } from "./wire/message-views.js";
import { type ProviderChoice, resolveShape } from "./wire/provider-choice.js";
import { replaceMessagesEdit } from "./wire/replace-messages.js";
import type { WireShape } from "./wire/shape.js";
import { readTranscript, type Transcript } from "./wire/transcript.js";
import type { Provider, Span } from "./wire/types.js";

export interface CompactOptions {
  provider?: ProviderChoice;
  /** Explicit session id (header `x-context-guru-session`). */
  session?: string | undefined;
  /**
   * The session key a caller already derived from the body it parsed (the proxy routes), so a
   * job is placed on the worker that ran its session's last one without reading the body again
   * (src/compaction/job-session.ts). The compactor derives its own key; this names nothing.
   */
  placement?: string | undefined;
  /** Run exactly these components (header `x-context-guru-pipeline`). */
  pipeline?: readonly string[] | undefined;
  /** Named preset instead of the configured pipeline (`?preset=`). */
  preset?: string | undefined;
  /** What the caller knows of the model server's prompt cache (header `x-context-guru-cache`). */
  cache?: CacheState | undefined;
  signal?: AbortSignal;
  /**
   * Called once, right before the store write that commits the answer; false means the answer
   * is no longer wanted (its deadline passed): nothing is written and the body comes back as it
   * came, so the ledger never records a body that was not returned.
   */
  commit?: (() => boolean) | undefined;
  /**
   * Called with the answer right before the store write that commits it (stashes and the
   * ledger's new head): the answer stands once that write is acknowledged; if the write fails,
   * the compaction goes on to another answer (one-way, or lossless reformats). A worker thread
   * sends it ahead, so that the event-loop thread, which makes the write, answers as soon as
   * its store acknowledges it rather than after two more messages between the threads.
   */
  ahead?: ((answer: CompactResult) => void) | undefined;
  /**
   * The caller knows the request is the agent summarising its own history (a header such as
   * Codex's `x-codex-turn-metadata` says so); the body is recognised too (§4a "Live sessions").
   */
  agentCompaction?: boolean | undefined;
  /** The request's own model and credentials, for LLM-backed components with `source: incoming`. */
  incoming?: { model?: string; headers?: Record<string, string> } | undefined;
  /**
   * Decide the body exactly as this request would be decided now, and record nothing: no
   * stash, no ledger head, no originals sent ahead (`POST /v1/messages/count_tokens` counts what
   * the model would read without the count becoming part of the session).
   */
  dryRun?: boolean | undefined;
}

/** The signal of a compaction that was given none: nothing ever aborts it. */
const NEVER_ABORTED = new AbortController().signal;

/** Why a body went back unchanged without running the pipeline. */
export type Passthrough =
  | "not_json"
  | "not_object"
  | "no_messages"
  | "ambiguous_keys"
  /** One changed output text spelled with two different sets of escapes in the same body. */
  | "ambiguous_spelling"
  /** The answer was no longer wanted when it was ready (past its deadline). */
  | "abandoned";

export interface CompactResult {
  /** The body to send: the input text itself when nothing changed. */
  readonly text: string;
  readonly changed: boolean;
  readonly provider: Provider;
  readonly session: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Markers and summary sentinels in the returned body that this service wrote. */
  readonly markers: number;
  /** Ids of the full markers in the returned body: the only ids this request may resolve. */
  readonly markerIds: readonly string[];
  /** What the request was treated as (§4a), and why. */
  readonly cache: CacheTreatment;
  /** What it expects of the server's cache, for the proxy to set against what was served. */
  readonly prediction?: CachePrediction | undefined;
  /** Already-sent outputs given back as they were returned before. */
  readonly replayed: number;
  /** Set when the request took a priced break of its warm prefix (§4a). */
  readonly pricedBreak?: PricedBreak | undefined;
  /** Set when full markers acted as off because the model cannot call the expand tool. */
  readonly markersDegraded?: NoExpandReason;
  /** The requested pipeline or preset named unknown components; the configured one ran. */
  readonly pipelineFallback: boolean;
  readonly passthrough?: Passthrough;
  readonly report?: RunReport;
}

/** A priced break (§4a): the prices it was judged by, and what it is expected to save. */
export interface PricedBreak {
  readonly pricing: PricingName;
  /**
   * The expected saving over the turns to come less the re-write now, in tokens-equivalent
   * (units of one uncached prompt token).
   */
  readonly netSaving: number;
}

export interface CompactorDeps {
  readonly config: Config;
  readonly store: Store;
  readonly registry: Registry;
  /** Milliseconds clock for the ledger's request times (tests move time by hand). */
  readonly clock?: () => number;
  /** The marker key (§6); else `store.hash_key`, else a random key of this instance. */
  readonly hashKey?: string | undefined;
}

/** What one parsed request is, before any component runs. */
interface Parsed {
  readonly text: string;
  readonly body: Record<string, unknown>;
  readonly messages: readonly unknown[];
  readonly scan: BodyScan;
  readonly transcript: Transcript;
  readonly shape: WireShape;
  readonly session: string;
  readonly names: readonly ComponentName[];
  readonly pipelineFallback: boolean;
  readonly tokensBefore: number;
  /** Tokens of each tool output as received (TokenCounter.estimate), parallel to its outputs. */
  readonly outputTokens: readonly number[];
  /** Content ids for this request: the shared memo's, and long texts' remembered for it. */
  readonly hash: (text: string) => string;
  /** Token counts for this request: the shared memo's, and what it received held for it. */
  readonly tokens: TokenCounter;
}

/** The session's history as far as this request shares it (§4a). */
interface History {
  readonly ledger: SessionLedger;
  /** What the prompt holds before its messages (session/root.ts): the chain's root. */
  readonly root: string;
  /** The digest of each received message (session/chain.ts). */
  readonly digests: readonly string[];
  readonly chain: readonly string[];
  /** The head this request stands on (session/divergence.ts), when it describes its messages. */
  readonly head: Head | undefined;
  /** The recorded decision of each output of the messages given back as they were returned. */
  readonly frozen: readonly Decision[];
  /** Messages from the first given back as they were returned: the head's, or fewer. */
  readonly through: number;
  /** The request left its conversation at message `through`, an already-sent one. */
  readonly diverged: boolean;
  /** No earlier assistant turn: a session's first request (§4a "Live sessions"). */
  readonly first: boolean;
  /** The agent summarising its own history (session/agent-compaction.ts). */
  readonly agentCompaction: boolean;
  readonly now: number;
}

/** A request decided under one treatment (Compactor.#decide), its body written back. */
interface Decided extends Written {
  readonly run: RunResult;
  readonly ability: ReturnType<typeof expandAbility>;
  readonly degraded: NoExpandReason | undefined;
}

/** What the head decision settled on: the treatment, its body, and how it is priced. */
interface Outcome {
  readonly treatment: CacheTreatment;
  readonly decided: Decided;
  readonly pricing: Pricing;
  /** Returned tokens of the previous request this one still starts with, when warm. */
  readonly kept: number;
  /** Set when the re-decision is a priced break. */
  readonly pricedBreak?: PricedBreak;
}

/**
 * Whether the tools of the returned body are decided by this request (§4a, §8.1): they head the
 * prompt, so only where nothing of it is cached — a session's first request, a cold one, one
 * the ledger has no head for. A request that diverged after some messages keeps them, and so
 * the tools they were sent with; the agent's own compaction goes as its conversation was sent.
 */
function toolsDecided(history: History, treatment: CacheTreatment): boolean {
  if (history.head === undefined) return true;
  if (history.agentCompaction) return false;
  if (treatment.state !== "cold") return false;
  return treatment.reason !== "diverged" || history.through === 0;
}

/**
 * Whether the returned body carries the expand tool it did not declare (§8.1): where the tools
 * are decided, on a session's first request (every later reduction of it can then carry a
 * marker), when always injected, when a full marker was written, or when the head carried it;
 * elsewhere as the head was sent.
 */
function carriesTool(
  decided: Decided,
  config: Config,
  decides: boolean,
  history: History,
): boolean {
  const { head } = history;
  return (
    decided.ability.able &&
    !decided.ability.declared &&
    (decides
      ? config.inject_expand === "always" ||
        history.first ||
        decided.run.markerIds.length > 0 ||
        head?.tool === true
      : head?.tool === true)
  );
}

/**
 * Compacts request bodies (§2–§4a): parse once, scan the text for the spans of message strings,
 * read the session's ledger, give already-sent outputs back as they were returned and run the
 * pipeline over the rest (or over everything when the cache is cold), stash originals and the
 * ledger's new head in one write, and write back only the changed string values. Never throws
 * for a bad body: it comes back unchanged.
 */
export class Compactor {
  readonly #tokens: TokenCounter;
  readonly #memo: OutputMemo;
  readonly #hash: (text: string) => string;
  /** Texts longer than this are more than the shared id memo keeps. */
  readonly #longChars: number;
  readonly #chains: ChainMemo;
  readonly #redecisions: Redecisions;
  readonly #classes: ContentClasses;
  readonly #clock: () => number;
  readonly #hashKey: string;

  constructor(private readonly deps: CompactorDeps) {
    // The memos share one budget (UTF-16 text is two bytes a character).
    const chars = deps.config.limits.memo_bytes / 2;
    this.#tokens = new TokenCounter(Math.floor(chars * 0.33));
    this.#memo = new OutputMemo(Math.floor(chars * 0.31));
    this.#redecisions = new Redecisions(Math.floor(chars * 0.02));
    this.#classes = new ContentClasses(Math.floor(chars * 0.05));
    this.#hashKey = deps.hashKey ?? deps.config.store.hash_key ?? randomHashKey();
    this.#hash = memoiseHash(contentHasher(this.#hashKey), Math.floor(chars * 0.15));
    this.#longChars = Math.floor((chars * 0.15) / 2);
    this.#chains = new ChainMemo(Math.floor(chars * 0.14));
    this.#clock = deps.clock ?? Date.now;
  }

  get hash(): (text: string) => string {
    return this.#hash;
  }

  /** The marker key this compactor writes ids under, for the threads that share its ids. */
  get hashKey(): string {
    return this.#hashKey;
  }

  /**
   * One request, as named steps: parse; read the session's history; treat the request as warm
   * or cold; decide it (replay what was sent, decide what is new); the head decision (a warm
   * request over its budget, or whose priced break pays, is re-decided in one event); commit
   * (stashes and the ledger's new head in one write) and answer.
   */
  async compact(text: string, options: CompactOptions = {}): Promise<CompactResult> {
    const parsed = this.#parse(text, options);
    if ("passthrough" in parsed) return parsed.passthrough;
    const history = await this.#history(parsed, options);
    const treated = treatRequest(this.deps.config.cache, options.cache, history.ledger, {
      now: history.now,
      first: history.first,
      diverged: history.diverged,
      agentCompaction: history.agentCompaction,
      known: history.head !== undefined,
    });
    const first = await this.#decide(parsed, history, treated, options);
    // A body whose bytes cannot be rewritten safely goes back as it came, and nothing is recorded.
    if ("bail" in first) return unchanged(parsed, treated, first.bail);
    const outcome = await this.#headDecision(parsed, history, treated, first, options);
    return this.#commit(parsed, history, outcome, options);
  }

  /**
   * The priced head decision (§4a): a warm request is re-decided as cold when it is over the
   * context budget or when breaking its prefix pays, judged first from an estimate of the warm
   * result (no second run), then from what the re-decision really changed.
   */
  async #headDecision(
    parsed: Parsed,
    history: History,
    treatment: CacheTreatment,
    warm: Decided,
    options: CompactOptions,
  ): Promise<Outcome> {
    const { config, registry } = this.deps;
    const pricing = pricingFor(config.cache, parsed.shape.pricing);
    const context: BreakContext = {
      pricing,
      history: history.head?.cost,
      previousAt: history.ledger.lastRequestAt ?? history.now,
      now: history.now,
      lifetimeMs: cacheLifetime(config.cache, history.ledger.learned).ms,
      received: parsed.tokensBefore,
    };
    const stay: Outcome = {
      treatment,
      decided: warm,
      pricing,
      kept: history.head?.cost?.after ?? 0,
    };
    if (treatment.state !== "warm" || history.agentCompaction) return stay;
    const estimable = parsed.names.includes("mask");
    if (!headEventPossible(config.cache, context, warm.tokensAfter, estimable)) return stay;
    const sized = { tokens: warm.tokensAfter, length: warm.text.length };
    const perChar = tokensPerChar(parsed.transcript, parsed.tokensBefore);
    const estimate = estimateHead(
      {
        transcript: parsed.transcript,
        names: parsed.names,
        config,
        registry,
        tokens: parsed.tokens,
        received: parsed.outputTokens,
        perChar,
      },
      { texts: warm.run.texts, decisions: warm.run.decisions, ...sized },
    );
    const event = headEvent(config.cache, context, estimate, estimable);
    if (event === undefined) return stay;
    const cold: CacheTreatment = { state: "cold", reason: event };
    const judge = (redecision: Redecision) => {
      if (redecision.decided === undefined) return undefined;
      const toolsChanged = carriesTool(warm, this.deps.config, false, history) !== redecision.tool;
      const change = headChange(
        { text: warm.text, tokens: warm.tokensAfter },
        redecision.decided,
        toolsChanged,
        perChar,
      );
      return acceptEvent(event, config.cache, context, change) ? change : undefined;
    };
    // A re-decision this request came to before is judged again without a run; one that is
    // taken is run for real.
    const { kept: expanded } = history.ledger;
    const known = this.#redecisions.get(parsed.text, parsed.shape.name, parsed.names, expanded);
    if (known !== undefined && judge(known) === undefined) return stay;
    const decided = await this.#decide(parsed, history, cold, options);
    const redecision: Redecision =
      "bail" in decided
        ? { decided: undefined, tool: false }
        : {
            decided: { text: decided.text, tokens: decided.tokensAfter },
            tool: carriesTool(decided, this.deps.config, true, history),
          };
    this.#redecisions.set(parsed.text, parsed.shape.name, parsed.names, expanded, redecision);
    const change = judge(redecision);
    if ("bail" in decided || change === undefined) return stay;
    const kept = Math.max(0, change.tokens - change.suffix);
    if (event !== "priced") return { treatment: cold, decided, pricing, kept };
    const price = priceBreak(context, change);
    const name = pricingName(config.cache, parsed.shape.pricing);
    const pricedBreak = { pricing: name, netSaving: price.saving - price.cost };
    return { treatment: cold, decided, pricing, kept, pricedBreak };
  }

  /** Stashes and the ledger's new head in one acknowledged write, then the answer. */
  async #commit(
    parsed: Parsed,
    history: History,
    outcome: Outcome,
    options: CompactOptions,
  ): Promise<CompactResult> {
    const { treatment, decided } = outcome;
    const { run } = decided;
    const addTool = carriesTool(
      decided,
      this.deps.config,
      toolsDecided(history, treatment),
      history,
    );
    const warm =
      treatment.state === "warm" || treatment.reason === "priced" || treatment.reason === "budget";
    const head: Head = {
      messages: parsed.messages.length,
      root: history.root,
      prints: printsOf(history.digests),
      tool: decided.ability.able && (decided.ability.declared || addTool),
      outputs: run.decisions,
      ...(run.replacement && decided.summarized
        ? { summary: { from: run.replacement.from, to: run.replacement.to } }
        : {}),
      at: history.now,
      cost: nextHistory(outcome.pricing, history.head?.cost, {
        now: history.now,
        received: parsed.tokensBefore,
        returned: decided.tokensAfter,
        kept: warm && history.head !== undefined ? outcome.kept : 0,
        warm: warm && history.head !== undefined,
        cold: !warm,
      }),
    };
    // The agent's own compaction is a side call of the conversation it summarises: it records
    // no head of its own, so the conversation's next request stands on the conversation's.
    const recorded = history.agentCompaction ? undefined : head;
    const ledger = recordHead(history.ledger, history.now, history.chain.at(-1), recorded);
    if (options.commit?.() === false) return unchanged(parsed, treatment, "abandoned");
    let entries: StashEntry[];
    // Whatever stops the write being made stops it as a failed write would (below).
    try {
      const pending = [...run.stashes, ...decided.spellings];
      entries =
        pending.length === 0
          ? []
          : scopedEntries(pending, this.#returnedConversation(parsed, history, decided));
    } catch (error) {
      return this.#withoutStash(parsed, history, treatment, options, error);
    }
    const pieced = countPieced(entries, this.deps.config.store.max_entry_bytes);
    if (pieced > 0) run.report.pieced = pieced;
    const result: CompactResult = {
      text: decided.text,
      changed: decided.text !== parsed.text,
      provider: parsed.shape.name,
      session: parsed.session,
      tokensBefore: parsed.tokensBefore,
      tokensAfter: decided.tokensAfter,
      markers: run.markers,
      markerIds: run.markerIds,
      cache: treatment,
      prediction: predict(history, treatment),
      replayed: run.replayed,
      ...(outcome.pricedBreak ? { pricedBreak: outcome.pricedBreak } : {}),
      pipelineFallback: parsed.pipelineFallback,
      report: run.report,
      ...(decided.degraded ? { markersDegraded: decided.degraded } : {}),
    };
    const answer = addTool ? withExpandTool(result, parsed) : result;
    if (options.dryRun) return answer;
    options.ahead?.(answer);
    try {
      // Stashes and the ledger's new head in one acknowledged write (one round trip on Redis).
      await this.deps.store.put(parsed.session, entries, { ledger });
    } catch (error) {
      // Nothing was kept: no marker may stand without its stash (§7), nor may a body this big
      // go on unreduced (§1).
      return this.#withoutStash(parsed, history, treatment, options, error);
    }
    return answer;
  }

  #parse(text: string, options: CompactOptions): Parsed | { passthrough: CompactResult } {
    const { config } = this.deps;
    const early = (provider: Provider, session: string, reason: Passthrough) => ({
      passthrough: passthrough(text, provider, session, reason),
    });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return early("openai", sessionKey(undefined, options.session), "not_json");
    }
    if (!isRecord(body))
      return early("openai", sessionKey(undefined, options.session), "not_object");
    const shape = resolveShape(options.provider ?? "auto", body);
    const provider = shape.name;
    const session = sessionKey(body, options.session);
    const messages = body[shape.scan.conversation];
    if (!Array.isArray(messages)) return early(provider, session, "no_messages");
    const scan = scanBody(text, shape.scan);
    if (!scan || scan.ambiguous) return early(provider, session, "ambiguous_keys");
    const transcript = readTranscript(shape, messages, scan, this.#classes.of);
    const requested = options.pipeline ?? (options.preset ? undefined : config.pipeline);
    const names: readonly ComponentName[] | undefined =
      options.pipeline || options.preset
        ? pipelineFor(requested, options.preset ?? config.preset)
        : configuredPipeline(config);
    // Each string counted once a request: the outputs' counts serve the head estimate, the
    // guards of their changes and the written-back total.
    const counter = this.#tokens.forRequest();
    let tokensBefore = 0;
    const outputTokens: number[] = [];
    for (const item of transcript.strings) {
      const tokens = counter.receive(item.text);
      tokensBefore += tokens;
      if (item.tool) outputTokens.push(tokens);
    }
    return {
      text,
      body,
      messages,
      scan,
      transcript,
      shape,
      session,
      names: names ?? configuredPipeline(config),
      pipelineFallback: names === undefined,
      tokensBefore,
      outputTokens,
      hash: rememberLongTexts(this.#hash, this.#longChars),
      tokens: counter,
    };
  }

  async #history(parsed: Parsed, options: CompactOptions): Promise<History> {
    const now = this.#clock();
    const { shape, text, scan, body, messages, transcript } = parsed;
    // An unreadable ledger is an unknown history: warm, nothing replayed (§4a). The deployment's
    // learned cache lifetime is read beside it, in the same round trip.
    const [stored, deployment] = await Promise.all([
      this.deps.store.ledger(parsed.session).catch(() => EMPTY_LEDGER),
      readDeploymentLifetime(this.deps.store),
    ]);
    const ledger = withDeploymentLifetime(stored, deployment);
    const root = conversationRoot(shape, text, scan, body);
    const { digests, ids: chain } = this.#chains.chain(
      parsed.session,
      "received",
      scan.messages.map((span) => text.slice(span.start, span.end)),
      (index) => messages[index],
      { bodyChars: text.length, root },
    );
    const agentCompaction = options.agentCompaction === true || isAgentCompaction(shape, messages);
    const stands = standing(ledger, root, chain, printsOf(digests), {
      anyRoot: agentCompaction,
      named: namesConversation(body, options.session),
    });
    let { head, through } = stands;
    let frozen: readonly Decision[] = [];
    if (head && agentCompaction) {
      // The agent's compaction sends its conversation again with the request for a summary,
      // which Claude Code appends to the last message: every output the head returned goes as
      // it was returned, that message's too.
      frozen = head.outputs.slice(0, transcript.outputs.length);
    } else if (head) {
      // A head describes these messages only if it saw the same outputs in them (same shape read).
      const outputs = outputsBefore(transcript, through);
      if (through === head.messages && outputs !== head.outputs.length) head = undefined;
      else frozen = head.outputs.slice(0, outputs);
    }
    if (head === undefined) through = 0;
    const diverged = stands.diverged && (head !== undefined || through === 0);
    return {
      ledger,
      root,
      digests,
      chain,
      head,
      frozen,
      through,
      diverged,
      // A conversation that went on from messages already sent (the history after the agent's
      // own compaction) diverged, whether or not it holds an assistant turn.
      first: !shape.conversation.hasAssistantTurn(body, messages) && !(diverged && through > 0),
      agentCompaction,
      now,
    };
  }

  /** The body this request gets under `treatment`: replays, new decisions, edits written back. */
  async #decide(
    parsed: Parsed,
    history: History,
    treatment: CacheTreatment,
    options: CompactOptions,
    names: readonly ComponentName[] = parsed.names,
    oneWay?: OneWay,
  ): Promise<Decided | { bail: Passthrough }> {
    const { config, store } = this.deps;
    // Nothing of a request reduced one-way throughout is kept: as with a store that keeps nothing.
    const persists = store.persists && oneWay?.all !== true;
    const redecide = treatment.state === "cold";
    const { head } = history;
    // A cold request re-decides what it gives back, save the messages before it diverged.
    const replays = !redecide || treatment.reason === "diverged";
    const ability = expandAbility(
      config.inject_expand,
      persists,
      parsed.body.tools,
      parsed.body.tool_choice,
    );
    // Full markers need a model that can expand them: the tool is added only where the tools are
    // decided (a session's first request, a cold one), so a warm request without it acts as off.
    // The agent's own compaction gives its conversation back as it was sent, markers included.
    const expandable = history.agentCompaction
      ? head?.tool === true || (ability.able && ability.declared)
      : ability.able &&
        (ability.declared || toolsDecided(history, treatment) || head?.tool === true);
    const frozen: readonly (Decision | undefined)[] = replays ? history.frozen : [];
    const run = await runPipeline(
      {
        registry: this.deps.registry,
        tokens: parsed.tokens,
        memo: this.#memo,
        hash: parsed.hash,
        // Originals are stashed only with full markers (reformat records included).
        stage:
          persists && config.marker_mode === "full" && store.stage && !options.dryRun
            ? (value: string) => store.stage?.(value)
            : undefined,
      },
      {
        transcript: parsed.transcript,
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
          provider: parsed.shape.upstream.family,
          model:
            options.incoming?.model ??
            (typeof parsed.body.model === "string" ? parsed.body.model : undefined),
          headers: options.incoming?.headers ?? {},
          baseUrl: config.upstream[parsed.shape.upstream.family].base_url,
        },
        // Where messages are never replaced, messages-scoped components are unavailable.
        messages: parsed.shape.summaryMessage
          ? () => messagesView(parsed.shape, parsed.messages, parsed.scan, parsed.text)
          : undefined,
      },
    );
    const written = writeBack(parsed, run, parsed.hash, (value) => parsed.tokens.estimate(value));
    if ("bail" in written) return written;
    const degraded =
      !expandable && persists && usesFullMarkers(config, names)
        ? ability.able
          ? "tool_absent"
          : ability.reason
        : undefined;
    return { run, ability, degraded, ...written };
  }

  /**
   * The returned conversation id of each received message (session/records.ts): the chain id of
   * the message it became in the returned body (a summary stands where its span began). A
   * message no edit touched keeps its received digest; an edited one is hashed as returned.
   */
  #returnedConversation(
    parsed: Parsed,
    history: History,
    written: Written,
  ): (message: number) => string | undefined {
    const { scan, text } = parsed;
    const replaced = written.summary;
    // The returned messages, undefined where one is as received.
    const raws: (string | undefined)[] = [];
    const known: string[] = [];
    for (const [index, span] of scan.messages.entries()) {
      if (replaced && index >= replaced.from && index < replaced.to) {
        if (index === replaced.from) raws.push(replaced.raw);
        continue;
      }
      const edits = written.messageEdits.get(index);
      known[raws.length] = history.digests[index] as string;
      if (edits === undefined) {
        raws.push(undefined);
        continue;
      }
      const shifted = edits.map((edit) => ({
        span: { start: edit.span.start - span.start, end: edit.span.end - span.start },
        raw: edit.raw,
      }));
      raws.push(applyEdits(text.slice(span.start, span.end), shifted));
    }
    const { ids: chain } = this.#chains.chain(
      parsed.session,
      "returned",
      raws,
      (index) => JSON.parse(raws[index] as string),
      { known },
    );
    return (message) => {
      if (!replaced || message < replaced.from) return chain[message];
      if (message < replaced.to) return chain[replaced.from];
      return chain[message - (replaced.to - replaced.from) + 1];
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
  async #withoutStash(
    parsed: Parsed,
    history: History,
    treatment: CacheTreatment,
    options: CompactOptions,
    error: unknown,
  ): Promise<CompactResult> {
    const capacity =
      error instanceof StoreCapacityError || error instanceof StoreEntryTooLargeError;
    const names = capacity
      ? parsed.names
      : parsed.names.filter((name) => this.deps.registry[name]?.kind === "reformat");
    const bare: History = { ...history, head: undefined, frozen: [], through: 0 };
    const oneWay: OneWay = {
      above: this.deps.config.store.max_entry_bytes,
      reason: capacity ? "capacity" : "unavailable",
      all: capacity,
    };
    const decided = await this.#decide(parsed, bare, treatment, options, names, oneWay);
    if ("bail" in decided) return unchanged(parsed, treatment, decided.bail);
    const report = decided.run.report;
    report.stashFailure = error instanceof Error ? error.message : String(error);
    return {
      text: decided.text,
      changed: decided.text !== parsed.text,
      provider: parsed.shape.name,
      session: parsed.session,
      tokensBefore: parsed.tokensBefore,
      tokensAfter: decided.tokensAfter,
      markers: decided.run.markers,
      markerIds: [],
      cache: treatment,
      replayed: 0,
      pipelineFallback: parsed.pipelineFallback,
      report,
    };
  }
}

/** What a request treated as `treatment` expects of the server's cache (§4a). */
function predict(history: History, treatment: CacheTreatment): CachePrediction {
  const { ledger, now } = history;
  return {
    at: now,
    // Replicas' clocks may disagree by a little: an idle time is never negative.
    idleMs:
      ledger.lastRequestAt === undefined ? undefined : Math.max(0, now - ledger.lastRequestAt),
    expectedHit: treatment.state === "warm" && history.head !== undefined,
    previousInputTokens: ledger.observed?.inputTokens,
    learned: ledger.learned,
  };
}

/** Originals of `entries` the store keeps in pieces (store/pieces.ts). */
function countPieced(entries: readonly StashEntry[], maxEntryBytes: number): number {
  return entries.filter(({ value }) => needsPieces(value, maxEntryBytes)).length;
}

/** A decided body written back: its text and what was edited where. */
interface Written {
  readonly text: string;
  readonly tokensAfter: number;
  /** Spelling records /rehydrate needs to restore escapes as the client wrote them. */
  readonly spellings: PendingStash[];
  readonly summarized: boolean;
  /** The accepted summary: the messages it replaced and the element that stands for them. */
  readonly summary:
    | { readonly from: number; readonly to: number; readonly raw: string }
    | undefined;
  /** The output edits of each received message, by message index. */
  readonly messageEdits: ReadonlyMap<number, readonly Edit[]>;
}

/** Tool outputs held by the first `messages` messages. */
function outputsBefore(transcript: Transcript, messages: number): number {
  let count = 0;
  for (const output of transcript.outputs) if (output.messageIndex < messages) count++;
  return count;
}

/** Whether any component of the pipeline would write full markers given a store and a model. */
function usesFullMarkers(config: Config, names: readonly ComponentName[]): boolean {
  return names.some(
    (name) => (config.components[name].marker_mode ?? config.marker_mode) === "full",
  );
}

/**
 * The request text with every changed output, and an accepted summary, written back in place;
 * the spelling records that keep escapes /rehydrate must restore; the tokens after.
 */
function writeBack(
  parsed: Parsed,
  run: RunResult,
  hash: (text: string) => string,
  count: (text: string) => number,
): Written | { bail: Passthrough } {
  const { text, transcript, scan, shape } = parsed;
  const edits: Edit[] = [];
  const messageEdits = new Map<number, Edit[]>();
  const spellings = new Map<string, { raw: string; messages: Set<number> }>();
  const changedLiterals: Array<{ text: string; raw: string }> = [];
  let saved = 0;
  for (const [index, next] of run.texts.entries()) {
    const output = transcript.outputs[index];
    const span = transcript.outputSpans[index];
    if (!output || !span || next === output.text) continue;
    // The scanner and JSON.parse must agree on what stands there before a byte is replaced.
    // A literal without an escape JSON.stringify would not write is spelled exactly as it
    // writes its value, so it needs no second look.
    const raw = text.slice(span.start, span.end);
    if (raw.length < output.text.length + 2) return { bail: "ambiguous_keys" };
    if (hasUnusualEscape(raw)) {
      if (JSON.parse(raw) !== output.text) return { bail: "ambiguous_keys" };
      // A literal spelled with escapes JSON.stringify would not write (`\u003c`, `\u00e9`,
      // `\/`) is kept as written, so /rehydrate gives back the exact bytes.
      if (raw !== JSON.stringify(output.text)) {
        const textId = hash(output.text);
        const known = spellings.get(textId);
        if (known) known.messages.add(output.messageIndex);
        else spellings.set(textId, { raw, messages: new Set([output.messageIndex]) });
      }
    }
    changedLiterals.push({ text: output.text, raw });
    const edit = { span, raw: JSON.stringify(next) };
    edits.push(edit);
    const inMessage = messageEdits.get(output.messageIndex);
    if (inMessage) inMessage.push(edit);
    else messageEdits.set(output.messageIndex, [edit]);
    saved += (parsed.outputTokens[index] as number) - count(next);
  }
  // One spelling record per text: the same text written two ways in one body could not be
  // told apart on the way back, so such a body goes as it came.
  if (spellings.size > 0) {
    for (const { text: original, raw } of changedLiterals) {
      const spelled = spellings.get(hash(original));
      if (spelled !== undefined && spelled.raw !== raw) return { bail: "ambiguous_spelling" };
    }
  }
  let summary: Written["summary"];
  if (run.replacement && shape.summaryMessage) {
    // Outputs inside the replaced messages were left as received, so no edit overlaps this one.
    const { from, to, role, message } = run.replacement;
    const edit = replaceMessagesEdit(scan, from, to, shape.summaryMessage(role, message));
    if (edit) {
      edits.push(edit);
      saved += run.replacement.tokensBefore - run.replacement.tokensAfter;
      summary = { from, to, raw: edit.raw };
    }
  }
  return {
    text: edits.length === 0 ? text : applyEdits(text, edits),
    tokensAfter: parsed.tokensBefore - saved,
    spellings: Array.from(spellings, ([textId, { raw, messages }]) => ({
      key: { kind: "sp" as const, textId },
      value: raw,
      messages,
    })),
    summarized: summary !== undefined,
    summary,
    messageEdits,
  };
}

/**
 * The result with the expand tool added (§8.1). Edits only ever fall inside the conversation
 * array (`messages`, `input`), so the source scan still locates every other member: those after
 * it move by the change in length.
 */
function withExpandTool(result: CompactResult, parsed: Parsed): CompactResult {
  const { scan } = parsed;
  const delta = result.text.length - parsed.text.length;
  const messages = scan.members.get(parsed.shape.scan.conversation);
  const members = new Map<string, Span>();
  for (const [key, span] of scan.members) {
    if (span === messages) members.set(key, { start: span.start, end: span.end + delta });
    else if (messages && span.start >= messages.end) {
      members.set(key, { start: span.start + delta, end: span.end + delta });
    } else members.set(key, span);
  }
  const text = injectExpandTool(result.text, parsed.shape, members, scan.close + delta);
  return { ...result, text, changed: true };
}

function unchanged(parsed: Parsed, cache: CacheTreatment, reason: Passthrough): CompactResult {
  return { ...passthrough(parsed.text, parsed.shape.name, parsed.session, reason), cache };
}

function passthrough(
  text: string,
  provider: Provider,
  session: string,
  reason: Passthrough,
): CompactResult {
  return {
    text,
    changed: false,
    provider,
    session,
    tokensBefore: 0,
    tokensAfter: 0,
    markers: 0,
    markerIds: [],
    cache: { state: "warm", reason: "unknown" },
    replayed: 0,
    pipelineFallback: false,
    passthrough: reason,
  };
}
