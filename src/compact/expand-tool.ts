import type { CacheTreatment } from "../cache/policy.js";
import type { Config } from "../config/schema.js";
import { injectExpandTool } from "../expand/inject.js";
import type { Span } from "../wire/types.js";
import type { CompactResult } from "./options.js";
import type { Decided, History, ParsedRequest } from "./turn.js";

/**
 * Whether the tools of the returned body are decided by this request (§4a, §8.1): they head the
 * prompt, so only where nothing of it is cached — a session's first request, a cold one, one
 * the ledger has no head for. A request that diverged after some messages keeps them, and so
 * the tools they were sent with; the agent's own compaction goes as its conversation was sent.
 */
export function toolsDecided(history: History, treatment: CacheTreatment): boolean {
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
export function carriesTool(
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
 * The result with the expand tool added (§8.1). Edits only ever fall inside the conversation
 * array (`messages`, `input`), so the source scan still locates every other member: those after
 * it move by the change in length.
 */
export function withExpandTool(result: CompactResult, request: ParsedRequest): CompactResult {
  const { scan, shape } = request;
  const delta = result.text.length - request.text.length;
  const messages = scan.members.get(shape.scan.conversation);
  const members = new Map<string, Span>();
  for (const [key, span] of scan.members) {
    if (span === messages) members.set(key, { start: span.start, end: span.end + delta });
    else if (messages && span.start >= messages.end) {
      members.set(key, { start: span.start + delta, end: span.end + delta });
    } else members.set(key, span);
  }
  const text = injectExpandTool(result.text, shape, members, scan.close + delta);
  return { ...result, text, changed: true };
}
