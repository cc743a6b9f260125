import { hash } from "node:crypto";
import type { BodyScan } from "../wire/json-scan.js";
import type { WireShape } from "../wire/shape.js";
import { withoutBreakpoints } from "./chain.js";

/**
 * The root of a conversation's chain (§4a "Live sessions"): what a prompt cache holds before the
 * first message — the request's tools, then its system prompt (a Responses body's
 * `instructions`; an OpenAI chat body's system prompt is a message and is chained as one). Two
 * requests share cached messages only if they share this, so the ledger's chain starts from it: a
 * title request without tools, or a subagent with a system prompt of its own, is another
 * conversation than the agent's turns under the same session key. An OpenAI-served request's
 * `prompt_cache_key` is part of it too: the provider routes its cache by that key. Moved cache
 * breakpoints are left out, as in message digests.
 */
export function conversationRoot(
  shape: WireShape,
  text: string,
  scan: BodyScan,
  body: Readonly<Record<string, unknown>>,
): string {
  const parts: string[] = [];
  for (const member of shape.conversation.promptHead) {
    const span = scan.members.get(member);
    const raw = span === undefined ? "" : text.slice(span.start, span.end);
    parts.push(member, raw === "" ? "" : withoutBreakpoints(raw, () => body[member]));
  }
  return hash("sha256", parts.join("\u0000")).slice(0, 32);
}
