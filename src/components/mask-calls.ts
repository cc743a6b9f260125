import type { RequestComponent, Selection } from "../pipeline/types.js";
import { isRecord } from "../wire/is-record.js";
import { jsonStringValues } from "../wire/json-values.js";
import { markedPhrase } from "./marked-phrase.js";

/** The note a cleared argument value becomes: how much of the agent's own action went. */
export function sentEarlier(value: string): string {
  let lines = 1;
  for (let at = value.indexOf("\n"); at >= 0; at = value.indexOf("\n", at + 1)) lines++;
  if (value.endsWith("\n")) lines--;
  return `[${lines} ${lines === 1 ? "line" : "lines"} sent earlier]`;
}

/**
 * Offload that reaches back over the agent's own actions (§5): in every tool call older than the
 * newest `keep_recent` whose result is in the conversation, each string value of its arguments
 * of at least `min_tokens` — an edit's old and new text, a written file's content, a patch —
 * becomes `[N lines sent earlier] ` + T. Keys and short values (paths, commands, ids) stay, so
 * the call still says what was done, and it stays a valid call: arguments that were a JSON
 * object stay one with the same keys; arguments that are one string (a freeform patch) become
 * the note. Its decisions are taken on cold turns and priced breaks only (§4a) and replayed
 * after; what it hid expands to the value itself (§8).
 */
export const maskCalls = {
  name: "mask_calls",
  kind: "offload",
  scope: "request",
  slots: "call",
  reachesBack: true,
  reducesText: true,
  bounds: false,
  readsLines: false,
  select(options, context) {
    const answered = context.outputs.filter((call) => call.answered === true);
    const firstRecent = answered.length - options.keep_recent;
    const picked: Selection[] = [];
    for (const [position, call] of answered.entries()) {
      if (position >= firstRecent) break;
      if (context.mayChange(call.index)) picked.push({ index: call.index });
    }
    return picked;
  },
  reduce(call, options, context) {
    const large = (value: string) => context.atLeastTokens(value, options.min_tokens);
    const cleared = (value: string) => markedPhrase(sentEarlier(value), context.marker(value));
    let document: unknown;
    try {
      document = JSON.parse(call.text);
    } catch {
      document = undefined;
    }
    if (!isRecord(document)) return large(call.text) ? cleared(call.text) : undefined;
    const { text } = call;
    let result = "";
    let from = 0;
    for (const { start, end } of jsonStringValues(text)) {
      // A value shorter in characters than the floor in tokens cannot reach it.
      if (end - start - 2 < options.min_tokens) continue;
      const value = JSON.parse(text.slice(start, end)) as string;
      if (!large(value)) continue;
      result += `${text.slice(from, start)}${JSON.stringify(cleared(value))}`;
      from = end;
    }
    return from === 0 ? undefined : result + text.slice(from);
  },
} satisfies RequestComponent<"mask_calls">;
