import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { RequestView } from "../conversation.js";

/**
 * The usage the scripted model reports, as a server with prefix caching would: the prompt's
 * tokens, of which the part shared with an earlier prompt of the same session is read from
 * cache. The agents decide their own compaction from these numbers, and the service learns
 * the cache's lifetime from them, so they follow what was received: never constants.
 */

export interface PromptUsage {
  readonly promptTokens: number;
  readonly cachedTokens: number;
}

/** Characters two texts share from their start. */
export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/** The prompt in the order a server caches it: tools, then system, then the conversation. */
export function promptText(view: RequestView): string {
  return [view.rawTools ?? "", view.rawSystem ?? "", ...view.items.map((item) => item.raw)].join(
    "\n",
  );
}

/** The tokens a model reads of a request (what a count_tokens call answers). */
export function promptTokens(view: RequestView): number {
  return countTokens(promptText(view));
}

export class PromptCache {
  private readonly seen = new Map<string, string[]>();

  /** The usage of a request of `session`, whose prompt the cache then holds. */
  read(session: string, view: RequestView): PromptUsage {
    const prompt = promptText(view);
    const tokens = countTokens(prompt);
    const earlier = this.seen.get(session) ?? [];
    let shared = 0;
    for (const text of earlier) shared = Math.max(shared, commonPrefixLength(text, prompt));
    earlier.push(prompt);
    this.seen.set(session, earlier);
    const cachedTokens = prompt.length === 0 ? 0 : Math.floor((tokens * shared) / prompt.length);
    return { promptTokens: tokens, cachedTokens };
  }
}
