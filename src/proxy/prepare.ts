import type { CachePrediction } from "../cache/observation.js";
import { type CacheTreatment, parseCacheHeader } from "../cache/policy.js";
import type { Compactor, CompactResult } from "../compact/compactor.js";
import type { Config } from "../config/schema.js";
import { credentialHeaders } from "../model/credential-headers.js";
import { agentCompactionHeader } from "../session/agent-compaction.js";
import { sessionKey } from "../session/key.js";
import type { Store } from "../store/types.js";
import type { Provider } from "../wire/types.js";

export interface PrepareDeps {
  readonly config: Config;
  readonly store: Store;
  readonly compactor: Pick<Compactor, "compact">;
}

/** What goes upstream in the first round, and what the loop needs to know about it. */
export interface Prepared {
  readonly text: string;
  readonly session: string;
  /** Marker ids this compaction wrote or replayed: the only ids the loop may resolve. */
  readonly allowed: ReadonlySet<string>;
  readonly tokensBefore: number | undefined;
  readonly tokensAfter: number | undefined;
  /** What the compaction treated the request as, and why, when it ran. */
  readonly cache: CacheTreatment | undefined;
  /** What the compaction expected of the server's cache, to set against what it served. */
  readonly prediction: CachePrediction | undefined;
}

export interface PrepareOptions {
  readonly provider: Provider;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  /** Compact as the request would be compacted now, recording nothing (CompactOptions). */
  readonly dryRun?: boolean;
}

/**
 * Compacts the request (fail-open: on any failure or past the compaction deadline the original
 * text goes upstream); the compaction adds the expand tool where §8.1 and §4a allow, and gives
 * an agent's own request to summarise its conversation back as that conversation was sent
 * (§4a "Live sessions"). `x-context-guru-bypass: true` skips compaction. A body that is not JSON is no request any
 * provider serves: it is answered by the route (`"not_json"`), never sent upstream.
 */
export async function prepareRequest(
  deps: PrepareDeps,
  original: string,
  options: PrepareOptions,
): Promise<Prepared | "not_json"> {
  const { headers } = options;
  const explicit = headers.get("x-context-guru-session") ?? undefined;
  let body: unknown;
  try {
    body = JSON.parse(original);
  } catch {
    return "not_json";
  }
  const bypass = headers.get("x-context-guru-bypass")?.toLowerCase() === "true";
  const session = sessionKey(body, explicit);
  const compacted = bypass ? undefined : await compactWithin(deps, original, session, options);
  return {
    text: compacted?.text ?? original,
    session: compacted?.session ?? session,
    // Only markers this compaction wrote or replayed resolve: a marker quoted in a message, or
    // one from another conversation, is not this request's to expand (§10).
    allowed: new Set(compacted?.markerIds ?? []),
    tokensBefore: compacted?.tokensBefore,
    tokensAfter: compacted?.tokensAfter,
    cache: compacted?.cache,
    prediction: compacted?.prediction,
  };
}

/**
 * The request's compaction as the routes run it (admitted, off the event loop when large, cut
 * off at `limits.compact_timeout_ms` or when the client goes away): undefined on any of those.
 * It is given the session key already derived from the parsed body to place its job, so a worker
 * thread is chosen by the session without the body being read again
 * (src/compaction/job-session.ts); the explicit id, if any, is the header's.
 */
async function compactWithin(
  deps: PrepareDeps,
  text: string,
  session: string,
  options: PrepareOptions,
): Promise<CompactResult | undefined> {
  const { headers } = options;
  try {
    return await deps.compactor.compact(text, {
      provider: options.provider,
      session: headers.get("x-context-guru-session") ?? undefined,
      placement: session,
      pipeline: headers
        .get("x-context-guru-pipeline")
        ?.split(",")
        .map((name) => name.trim())
        .filter(Boolean),
      cache: parseCacheHeader(headers.get("x-context-guru-cache")),
      agentCompaction: agentCompactionHeader(headers.get("x-codex-turn-metadata")),
      signal: options.signal,
      incoming: { headers: credentialHeaders(headers) },
      dryRun: options.dryRun,
    });
  } catch {
    return undefined;
  }
}

/**
 * The response headers that say how a request was handled: its session key, and when the
 * compaction ran, what it treated the request as and why, and the message tokens before and
 * after.
 */
export function setPreparedHeaders(headers: Headers, prepared: Prepared): void {
  headers.set("x-context-guru-session", prepared.session);
  if (prepared.cache !== undefined) {
    headers.set("x-context-guru-cache", prepared.cache.state);
    headers.set("x-context-guru-cache-reason", prepared.cache.reason);
  }
  if (prepared.tokensBefore !== undefined && prepared.tokensAfter !== undefined) {
    headers.set("x-context-guru-tokens-before", String(prepared.tokensBefore));
    headers.set("x-context-guru-tokens-after", String(prepared.tokensAfter));
  }
}
