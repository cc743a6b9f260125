import { MALFORMED_CALL, missPlaceholder, type ToolResult } from "../expand/continuation.js";
import type { ExpandCall } from "../expand/turn.js";
import type { Store } from "../store/types.js";
import type { ProxyEvents } from "./events.js";

export interface Resolution {
  /** One result per call, in call order. */
  readonly results: ToolResult[];
  /** Ids that resolved to their originals. */
  readonly resolved: string[];
}

/**
 * Looks up each call's id. Only ids that appear in this request's messages (`allowed`) and that
 * `session` owns resolve (§10); every other call gets the miss placeholder.
 */
export async function resolveCalls(
  store: Store,
  session: string,
  calls: readonly ExpandCall[],
  allowed: ReadonlySet<string>,
  events: ProxyEvents,
): Promise<Resolution> {
  const results: ToolResult[] = [];
  const resolved: string[] = [];
  for (const call of calls) {
    const original = await lookup(store, session, call.id, allowed);
    if (original === undefined) {
      events.onMiss?.();
      const content = call.id === undefined ? MALFORMED_CALL : missPlaceholder(call.id);
      results.push({ callId: call.callId, content });
      continue;
    }
    events.onResolved?.();
    resolved.push(call.id as string);
    results.push({ callId: call.callId, content: original });
  }
  if (resolved.length > 0) {
    // Expanded originals stay verbatim on later turns: the model asked for them.
    await store.keep(session, [...new Set(resolved)]).catch(() => undefined);
  }
  return { results, resolved };
}

async function lookup(
  store: Store,
  session: string,
  id: string | undefined,
  allowed: ReadonlySet<string>,
): Promise<string | undefined> {
  if (id === undefined || !allowed.has(id)) return undefined;
  try {
    return await store.get(session, id);
  } catch {
    return undefined;
  }
}
