import { mayBeJsonDocument } from "../content/json-limit.js";
import { itemsOfJson, showItems } from "../content/json-outline.js";
import { notableItems, notableRecord } from "../content/notable.js";
import type { ComponentContext, OptionsOf, OutputComponent } from "../pipeline/types.js";
import { type JsonDocument, parseJsonDocument } from "./json-document.js";
import { containerMembers, type JsonMember, joinTokens } from "./json-tokens.js";
import { markedPhrase } from "./marked-phrase.js";

interface Crushable {
  /** Token index of the array's `[`. */
  readonly open: number;
  readonly close: number;
  readonly items: readonly JsonMember[];
}

/**
 * Offload: a tool output that is one JSON array of at least `min_items` items keeps its first
 * `keep_first` and last `keep_last` items and every notable item (content/notable.ts: an error
 * word, or a status field whose value is not normal), in their original order, as
 * compact JSON followed by ` [k of n items shown]` + T.
 *
 * An object envelope (`{"total": 120, "items": [...]}`) is crushed too when exactly one of its
 * top-level properties is such an array; the other properties are kept whole. Kept items keep
 * their exact spelling (only whitespace between tokens is removed).
 */
export const smartcrush = {
  name: "smartcrush",
  kind: "offload",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: false,
  reduce(output, options, context) {
    if (!mayBeJsonDocument(output.text)) return crushOutlined(output.text, options, context);
    const document = parseJsonDocument(output.text);
    if (document === undefined) return undefined;
    const target = crushable(document, options.min_items);
    if (target === undefined) return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    const { text, tokens } = document;
    const n = target.items.length;
    const kept = target.items.filter((item, position) => {
      if (position < options.keep_first || position >= n - options.keep_last) return true;
      return notableRecord(itemText(document, item));
    });
    if (kept.length === n) return undefined;
    const crushed = [
      joinTokens(text, tokens.slice(0, target.open)),
      `[${kept.map((item) => itemText(document, item)).join(",")}]`,
      joinTokens(text, tokens.slice(target.close + 1)),
    ].join("");
    return markedPhrase(`${crushed} [${kept.length} of ${n} items shown]`, context.marker(text));
  },
} satisfies OutputComponent<"smartcrush">;

/** The root array, or the single envelope property holding an array, with enough items. */
function crushable(document: JsonDocument, minItems: number): Crushable | undefined {
  const { text, tokens } = document;
  if (Array.isArray(document.value)) {
    const { members, close } = containerMembers(text, tokens, 0);
    return members.length >= minItems ? { open: 0, close, items: members } : undefined;
  }
  const candidates: Crushable[] = [];
  for (const property of containerMembers(text, tokens, 0).members) {
    const open = tokens[property.first];
    if (open === undefined || text[open.start] !== "[") continue;
    const { members, close } = containerMembers(text, tokens, property.first);
    if (members.length >= minItems)
      candidates.push({ open: property.first, close, items: members });
  }
  return candidates.length === 1 ? candidates[0] : undefined;
}

function itemText(document: JsonDocument, item: JsonMember): string {
  return joinTokens(document.text, document.tokens.slice(item.first, item.end));
}

/**
 * A document too long to parse (content/json-limit.ts), crushed from its outline
 * (content/json-outline.ts): the same items are kept, each with its own spelling, whitespace
 * inside it included, so the kept part is exactly as valid as the received document.
 */
function crushOutlined(
  text: string,
  options: OptionsOf<"smartcrush">,
  context: ComponentContext,
): string | undefined {
  const array = itemsOfJson(text, options.min_items);
  if (array === undefined) return undefined;
  if (!context.atLeastTokens(text, options.min_tokens)) return undefined;
  // The first and last items are kept; only those between are read.
  const first = Math.min(options.keep_first, array.items.length);
  const last = Math.max(first, array.items.length - options.keep_last);
  const notable = notableItems(text, array.items.slice(first, last));
  const shown = showItems(
    text,
    array,
    (_, position) => position < first || position >= last || notable[position - first] === true,
  );
  return shown && markedPhrase(shown, context.marker(text));
}
