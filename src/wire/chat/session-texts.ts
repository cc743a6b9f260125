import { isRecord } from "../is-record.js";
import type { SessionTexts } from "../shape.js";
import { contentText } from "./content-text.js";

/**
 * A chat body's session texts (§7): the top-level `system` (Anthropic), else the first system or
 * developer message, and the first user message.
 */
export function chatSessionTexts(body: Record<string, unknown>): SessionTexts {
  let system = body.system === undefined ? undefined : contentText(body.system);
  let user: string | undefined;
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isRecord(message)) continue;
    if (system === undefined && (message.role === "system" || message.role === "developer")) {
      system = contentText(message.content);
    }
    if (user === undefined && message.role === "user") user = contentText(message.content);
    if (system !== undefined && user !== undefined) break;
  }
  return { system: system ?? "", user: user ?? "" };
}
