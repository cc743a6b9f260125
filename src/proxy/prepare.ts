import type { Compactor } from "../compactor.js";
import type { Config } from "../config/schema.js";
import { injectExpandTool } from "../expand/inject.js";
import { requestMarkerIds } from "../expand/request-markers.js";
import { credentialHeaders } from "../model/credential-headers.js";
import { sessionKey } from "../session/key.js";
import type { Store } from "../store/types.js";
import { scanTopLevel } from "../wire/json-scan.js";
import type { Provider } from "../wire/types.js";
import { isSummaryRequest } from "./summary-request.js";

export interface PrepareDeps {
  readonly config: Config;
  readonly store: Store;
  readonly compactor: Pick<Compactor, "compact">;
}

/** What goes upstream in the first round, and what the loop needs to know about it. */
export interface Prepared {
  readonly text: string;
  readonly session: string;
  /** Marker ids in the request's `system`/`messages`: the only ids the loop may resolve. */
  readonly allowed: ReadonlySet<string>;
  readonly tokensBefore: number | undefined;
  readonly tokensAfter: number | undefined;
}

export interface PrepareOptions {
  readonly provider: Provider;
  readonly headers: Headers;
  readonly signal: AbortSignal;
}

/**
 * Compacts the request (fail-open: on any failure or past the compaction deadline the original
 * text goes upstream), then injects the expand tool (§8.1). An agent's own request to summarise
 * the conversation goes upstream uncompacted; `x-context-guru-bypass: true` skips both steps.
 */
export async function prepareRequest(
  deps: PrepareDeps,
  original: string,
  options: PrepareOptions,
): Promise<Prepared> {
  const { headers } = options;
  const explicit = headers.get("x-context-guru-session") ?? undefined;
  let body: unknown;
  try {
    body = JSON.parse(original);
  } catch {
    body = undefined;
  }
  const bypass = headers.get("x-context-guru-bypass")?.toLowerCase() === "true";
  const compacted =
    bypass || isSummaryRequest(body) ? undefined : await compactWithin(deps, original, options);
  const session = compacted?.session ?? sessionKey(body, explicit);
  const text = bypass
    ? original
    : injectExpandTool(compacted?.text ?? original, {
        provider: options.provider,
        mode: deps.config.inject_expand,
        persists: deps.store.persists,
      });
  return {
    text,
    session,
    allowed: markerIdsOf(text),
    tokensBefore: compacted?.tokensBefore,
    tokensAfter: compacted?.tokensAfter,
  };
}

async function compactWithin(deps: PrepareDeps, text: string, options: PrepareOptions) {
  const abort = new AbortController();
  const onClientGone = () => abort.abort();
  options.signal.addEventListener("abort", onClientGone, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve(undefined);
    }, deps.config.limits.compact_timeout_ms);
  });
  const pipeline = options.headers
    .get("x-context-guru-pipeline")
    ?.split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  try {
    return await Promise.race([
      deps.compactor.compact(text, {
        provider: options.provider,
        session: options.headers.get("x-context-guru-session") ?? undefined,
        pipeline,
        signal: abort.signal,
        incoming: { headers: credentialHeaders(options.headers) },
      }),
      deadline,
    ]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onClientGone);
  }
}

function markerIdsOf(text: string): ReadonlySet<string> {
  try {
    const scan = scanTopLevel(text);
    return scan === undefined ? new Set() : requestMarkerIds(text, scan.members);
  } catch {
    return new Set();
  }
}
