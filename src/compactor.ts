import { configuredPipeline, pipelineFor } from "./config/presets.js";
import type { ComponentName, Config } from "./config/schema.js";
import { injectExpandTool } from "./expand/inject.js";
import { contentHasher } from "./expand/markers.js";
import { randomHashKey } from "./hash-key/random.js";
import { memoiseHash } from "./pipeline/hash-memo.js";
import { OutputMemo } from "./pipeline/output-memo.js";
import type { RunReport } from "./pipeline/report.js";
import { type Registry, runPipeline } from "./pipeline/run.js";
import { TokenCounter } from "./pipeline/tokens.js";
import { sessionKey } from "./session/key.js";
import type { Store } from "./store/types.js";
import { isRecord, type ProviderChoice, resolveProvider } from "./wire/detect.js";
import { applyEdits, type Edit } from "./wire/edit.js";
import { type BodyScan, scanBody } from "./wire/json-scan.js";
import { messagesView } from "./wire/message-views.js";
import { messageElement, replaceMessagesEdit } from "./wire/replace-messages.js";
import { readTranscript } from "./wire/transcript.js";
import type { Provider, Span } from "./wire/types.js";

export interface CompactOptions {
  provider?: ProviderChoice;
  /** Explicit session id (header `x-context-guru-session`). */
  session?: string | undefined;
  /** Run exactly these components (header `x-context-guru-pipeline`). */
  pipeline?: readonly string[] | undefined;
  /** Named preset instead of the configured pipeline (`?preset=`). */
  preset?: string | undefined;
  signal?: AbortSignal;
  /** The request's own model and credentials, for LLM-backed components with `source: incoming`. */
  incoming?: { model?: string; headers?: Record<string, string> } | undefined;
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
  | "ambiguous_spelling";

export interface CompactResult {
  /** The body to send: the input text itself when nothing changed. */
  readonly text: string;
  readonly changed: boolean;
  readonly provider: Provider;
  readonly session: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly markers: number;
  /** The requested pipeline or preset named unknown components; the configured one ran. */
  readonly pipelineFallback: boolean;
  readonly passthrough?: Passthrough;
  readonly report?: RunReport;
}

export interface CompactorDeps {
  readonly config: Config;
  readonly store: Store;
  readonly registry: Registry;
  /** The marker key (§6); else `store.hash_key`, else a random key of this instance. */
  readonly hashKey?: string | undefined;
}

/**
 * Compacts request bodies (§2–§4): parse once, scan the text for the spans of message strings,
 * run the pipeline over the tool outputs, stash originals, and write back only the changed
 * string values. Never throws for a bad body: it comes back unchanged.
 */
export class Compactor {
  readonly #tokens: TokenCounter;
  readonly #memo: OutputMemo;
  readonly #hash: (text: string) => string;

  constructor(private readonly deps: CompactorDeps) {
    // The memos share one budget (UTF-16 text is two bytes a character).
    const chars = deps.config.limits.memo_bytes / 2;
    this.#tokens = new TokenCounter(Math.floor(chars * 0.4));
    this.#memo = new OutputMemo(Math.floor(chars * 0.4));
    const hashKey = deps.hashKey ?? deps.config.store.hash_key ?? randomHashKey();
    this.#hash = memoiseHash(contentHasher(hashKey), Math.floor(chars * 0.2));
  }

  get hash(): (text: string) => string {
    return this.#hash;
  }

  async compact(text: string, options: CompactOptions = {}): Promise<CompactResult> {
    const { config, store } = this.deps;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return unchanged(text, "openai", sessionKey(undefined, options.session), "not_json");
    }
    if (!isRecord(body)) {
      return unchanged(text, "openai", sessionKey(undefined, options.session), "not_object");
    }
    const provider = resolveProvider(options.provider ?? "auto", body);
    const session = sessionKey(body, options.session);
    const { messages } = body;
    if (!Array.isArray(messages)) return unchanged(text, provider, session, "no_messages");
    const scan = scanBody(text);
    if (!scan || scan.ambiguous) return unchanged(text, provider, session, "ambiguous_keys");

    const transcript = readTranscript(provider, messages, scan);
    const requested = options.pipeline ?? (options.preset ? undefined : config.pipeline);
    const names: readonly ComponentName[] | undefined =
      options.pipeline || options.preset
        ? pipelineFor(requested, options.preset ?? config.preset)
        : configuredPipeline(config);
    const tokensBefore = transcript.strings.reduce(
      (sum, item) => sum + this.#tokens.count(item.text),
      0,
    );
    const base = {
      provider,
      session,
      tokensBefore,
      pipelineFallback: names === undefined,
    };
    const sticky = store.persists
      ? await store.sticky(session).catch(() => new Set<string>())
      : new Set<string>();
    const run = await runPipeline(
      { registry: this.deps.registry, tokens: this.#tokens, memo: this.#memo, hash: this.#hash },
      {
        transcript,
        names: names ?? configuredPipeline(config),
        config,
        persists: store.persists,
        sticky,
        signal: options.signal ?? NEVER_ABORTED,
        incoming: {
          provider,
          model:
            options.incoming?.model ?? (typeof body.model === "string" ? body.model : undefined),
          headers: options.incoming?.headers ?? {},
          baseUrl: config.upstream[provider].base_url,
        },
        messages: () => messagesView(provider, messages, scan, text),
      },
    );

    const edits: Edit[] = [];
    const spellings = new Map<string, string>();
    const changedLiterals: Array<{ text: string; raw: string }> = [];
    let saved = 0;
    for (const [index, next] of run.texts.entries()) {
      const output = transcript.outputs[index];
      const span = transcript.outputSpans[index];
      if (!output || !span || next === output.text) continue;
      // The scanner and JSON.parse must agree on what stands there before a byte is replaced.
      // A literal without `\u` or `\/` is spelled exactly as JSON.stringify writes its value
      // (valid JSON has no other way to spell a character), so it needs no second look.
      const raw = text.slice(span.start, span.end);
      if (raw.length < output.text.length + 2)
        return unchanged(text, provider, session, "ambiguous_keys");
      if (raw.includes("\\u") || raw.includes("\\/")) {
        if (JSON.parse(raw) !== output.text) {
          return unchanged(text, provider, session, "ambiguous_keys");
        }
        // A literal spelled with escapes JSON.stringify would not write (`\u003c`, `\u00e9`,
        // `\/`) is kept as written, so /rehydrate gives back the exact bytes.
        if (raw !== JSON.stringify(output.text)) {
          spellings.set(`sp:${this.#hash(output.text)}`, raw);
        }
      }
      changedLiterals.push({ text: output.text, raw });
      edits.push({ span, raw: JSON.stringify(next) });
      saved += this.#tokens.count(output.text) - this.#tokens.count(next);
    }
    // One spelling record per text: the same text written two ways in one body could not be
    // told apart on the way back, so such a body goes as it came.
    if (spellings.size > 0) {
      for (const { text: original, raw } of changedLiterals) {
        const spelled = spellings.get(`sp:${this.#hash(original)}`);
        if (spelled !== undefined && spelled !== raw) {
          return unchanged(text, provider, session, "ambiguous_spelling");
        }
      }
    }
    if (run.replacement) {
      // Outputs inside the replaced messages were left as received, so no edit overlaps this one.
      const { from, to, role, message } = run.replacement;
      const edit = replaceMessagesEdit(scan, from, to, messageElement(provider, role, message));
      if (edit) {
        edits.push(edit);
        saved += run.replacement.tokensBefore - run.replacement.tokensAfter;
      }
    }
    const unchangedResult: CompactResult = {
      ...base,
      text,
      changed: false,
      tokensAfter: tokensBefore,
      markers: 0,
      report: run.report,
    };
    const source = { scan, body, length: text.length };
    if (edits.length === 0) return this.#withExpandTool(unchangedResult, source);
    const reduced = store.persists ? run.reduced : [];
    if (run.stashes.length > 0) {
      try {
        // Stashes and sticky ids in one acknowledged write (one round trip on Redis).
        const spelled = Array.from(spellings, ([key, value]) => ({ key, value }));
        await store.put(session, [...run.stashes, ...spelled], { sticky: reduced });
      } catch (error) {
        run.report.stashFailure = error instanceof Error ? error.message : String(error);
        return unchangedResult;
      }
    } else if (reduced.length > 0) {
      await store.addSticky(session, reduced).catch(() => undefined);
    }
    return this.#withExpandTool(
      {
        ...base,
        text: applyEdits(text, edits),
        changed: true,
        tokensAfter: tokensBefore - saved,
        markers: run.markers,
        report: run.report,
      },
      source,
    );
  }

  /**
   * Adds the expand tool where §8.1 says it belongs (never without a persisting store). Edits
   * only ever fall inside `messages`, so the source scan still locates every other member: those
   * after `messages` move by the change in length.
   */
  #withExpandTool(
    result: CompactResult,
    source: { scan: BodyScan; body: Record<string, unknown>; length: number },
  ): CompactResult {
    const { config, store } = this.deps;
    if (config.inject_expand === "never" || !store.persists) return result;
    const delta = result.text.length - source.length;
    const messages = source.scan.members.get("messages");
    const members = new Map<string, Span>();
    for (const [key, span] of source.scan.members) {
      if (span === messages) members.set(key, { start: span.start, end: span.end + delta });
      else if (messages && span.start >= messages.end) {
        members.set(key, { start: span.start + delta, end: span.end + delta });
      } else members.set(key, span);
    }
    const text = injectExpandTool(result.text, {
      provider: result.provider,
      mode: config.inject_expand,
      persists: store.persists,
      known: {
        members,
        close: source.scan.close + delta,
        tools: source.body.tools,
        toolChoice: source.body.tool_choice,
        carriesMarker: result.markers > 0 ? true : undefined,
      },
    });
    return text === result.text ? result : { ...result, text, changed: true };
  }
}

function unchanged(
  text: string,
  provider: Provider,
  session: string,
  passthrough: Passthrough,
): CompactResult {
  return {
    text,
    changed: false,
    provider,
    session,
    tokensBefore: 0,
    tokensAfter: 0,
    markers: 0,
    pipelineFallback: false,
    passthrough,
  };
}
