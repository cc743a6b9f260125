import { treatRequest } from "../cache/policy.js";
import { randomHashKey } from "../hash-key/random.js";
import { unchanged } from "./answer.js";
import { commit } from "./commit.js";
import { decide } from "./decide.js";
import { decideHead } from "./head-decision.js";
import { readHistory } from "./history.js";
import { CompactorMemos } from "./memos.js";
import type { CompactOptions, CompactorDeps, CompactResult } from "./options.js";
import { parseRequest } from "./parse.js";
import type { CompactContext, Turn } from "./turn.js";

/**
 * Compacts request bodies (§2–§4a): parse once, scan the text for the spans of message strings,
 * read the session's ledger, give already-sent outputs back as they were returned and run the
 * pipeline over the rest (or over everything when the cache is cold), stash originals and the
 * ledger's new head in one write, and write back only the changed string values. Never throws
 * for a bad body: it comes back unchanged.
 */
export class Compactor {
  readonly #context: CompactContext;
  readonly #hashKey: string;

  constructor(deps: CompactorDeps) {
    this.#hashKey = deps.hashKey ?? deps.config.store.hash_key ?? randomHashKey();
    this.#context = {
      config: deps.config,
      store: deps.store,
      registry: deps.registry,
      memos: new CompactorMemos(
        deps.config.limits.memo_bytes,
        this.#hashKey,
        deps.config.store.ttl_seconds * 1000,
      ),
      clock: deps.clock ?? Date.now,
    };
  }

  /** Content ids (§6) under this compactor's marker key, memoised. */
  get hash(): (text: string) => string {
    return this.#context.memos.hash;
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
    const context = this.#context;
    const request = parseRequest(context, text, options);
    if (!("transcript" in request)) return request;
    const history = await readHistory(context, request);
    const treatment = treatRequest(context.config.cache, options.cache, history.ledger, {
      now: history.now,
      first: history.first,
      diverged: history.diverged,
      agentCompaction: history.agentCompaction,
      known: history.head !== undefined,
    });
    const turn: Turn = { request, history, treatment };
    const decided = await decide(context, request, history, treatment);
    // A body whose bytes cannot be rewritten safely goes back as it came, and nothing is recorded.
    if ("bail" in decided) return unchanged(request, treatment, decided.bail);
    const outcome = await decideHead(context, turn, decided);
    return commit(context, turn, outcome);
  }
}

export type {
  CompactOptions,
  CompactorDeps,
  CompactResult,
  Passthrough,
  PricedBreak,
} from "./options.js";
