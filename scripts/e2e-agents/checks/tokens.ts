import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { isRecord, type RequestView } from "../conversation.js";

/**
 * Message tokens: o200k_base tokens of the text a model reads in a request's conversation —
 * every string of its messages or input items but ids, types, roles, names and opaque blobs
 * (signatures, encrypted content). The same measure on both sides of the service gives the
 * saving over a session.
 */

const NOT_READ = new Set([
  "type",
  "id",
  "role",
  "name",
  "status",
  "call_id",
  "tool_use_id",
  "signature",
  "encrypted_content",
  "cache_control",
]);

export function readTexts(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const element of value) readTexts(element, into);
  else if (isRecord(value)) {
    for (const [key, member] of Object.entries(value)) {
      if (!NOT_READ.has(key)) readTexts(member, into);
    }
  }
  return into;
}

/** Agents re-send their history every turn: each distinct text is counted once. */
const counted = new Map<string, number>();

function tokensOf(text: string): number {
  let tokens = counted.get(text);
  if (tokens === undefined) {
    tokens = countTokens(text);
    counted.set(text, tokens);
  }
  return tokens;
}

export function messageTokens(view: RequestView): number {
  let total = 0;
  for (const item of view.items) for (const text of readTexts(item.value)) total += tokensOf(text);
  return total;
}
