import { isRecord } from "../wire/is-record.js";
import type { WireShape } from "../wire/shape.js";

/**
 * The agent's own compaction (§4a "Live sessions"): a request in which an agent summarises its
 * history to start over from the summary. It belongs to the conversation it summarises,
 * whatever its tools, and goes as that conversation was sent. Recognised by what the agents
 * send: a trailing item that asks for it (Codex's Responses `compaction_trigger`, built-in
 * provider), Codex's `request_kind: "compaction"` turn metadata (a header:
 * agentCompactionHeader), or the last user message asking for the summary in the words the
 * agents use (Claude Code's summary prompt, appended to its last user message; Codex's context
 * checkpoint prompt; the general request for a detailed summary of the conversation).
 */

const ASKS_FOR_SUMMARY = [
  /\bYour task is to create a detailed summary of the conversation so far\b/,
  /\bCONTEXT CHECKPOINT COMPACTION\b/,
  /\b(?:detailed|comprehensive|thorough|complete|full)\s+summary\s+of\s+(?:the|this|our)\s+(?:entire\s+|whole\s+)?conversation\b/i,
  /\bsummari[sz]e\s+(?:the|this|our)\s+(?:entire\s+|whole\s+)?conversation\b/i,
];

/** Whether a conversation (`items`) of wire shape `shape` is the agent's own compaction. */
export function isAgentCompaction(shape: WireShape, items: readonly unknown[]): boolean {
  const { conversation } = shape;
  if (conversation.endsWithCompactionTrigger(items)) return true;
  const text = conversation.lastUserText(items);
  return text !== "" && ASKS_FOR_SUMMARY.some((pattern) => pattern.test(text));
}

/**
 * Whether Codex's turn metadata header (`x-codex-turn-metadata`, JSON) names the request a
 * compaction.
 */
export function agentCompactionHeader(turnMetadata: string | null | undefined): boolean {
  if (!turnMetadata?.includes("compaction")) return false;
  try {
    const metadata: unknown = JSON.parse(turnMetadata);
    return isRecord(metadata) && metadata.request_kind === "compaction";
  } catch {
    return false;
  }
}
