import { isRecord } from "../wire/detect.js";
import type { Provider } from "../wire/types.js";

/**
 * The agent's own compaction (§4a "Live sessions"): a request in which an agent summarises its
 * history to start over from the summary. It belongs to the conversation it summarises,
 * whatever its tools, and goes as that conversation was sent. Recognised by what the agents
 * send: a trailing Responses `compaction_trigger` item (Codex, built-in provider), Codex's
 * `request_kind: "compaction"` turn metadata (a header: agentCompactionHeader), or the last
 * user message asking for the summary in the words the agents use (Claude Code's summary
 * prompt, Codex's context checkpoint prompt, and the general request for a detailed summary of
 * the conversation).
 */

const ASKS_FOR_SUMMARY = [
  /\bYour task is to create a detailed summary of the conversation so far\b/,
  /\bCONTEXT CHECKPOINT COMPACTION\b/,
  /\b(?:detailed|comprehensive|thorough|complete|full)\s+summary\s+of\s+(?:the|this|our)\s+(?:entire\s+|whole\s+)?conversation\b/i,
  /\bsummari[sz]e\s+(?:the|this|our)\s+(?:entire\s+|whole\s+)?conversation\b/i,
];

/** Whether a conversation (`messages`, or a Responses body's `input`) is the agent's compaction. */
export function isAgentCompaction(provider: Provider, conversation: readonly unknown[]): boolean {
  const last = conversation.at(-1);
  if (provider === "responses" && isRecord(last) && last.type === "compaction_trigger") return true;
  for (let index = conversation.length - 1; index >= 0; index--) {
    const message = conversation[index];
    if (!isRecord(message) || message.role !== "user") continue;
    const text = userText(message.content);
    return ASKS_FOR_SUMMARY.some((pattern) => pattern.test(text));
  }
  return false;
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

function userText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      isRecord(part) &&
      (part.type === "text" || part.type === "input_text") &&
      typeof part.text === "string"
        ? part.text
        : "",
    )
    .join("\n");
}
