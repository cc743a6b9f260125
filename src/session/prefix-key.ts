import { codeAt } from "../text/char-code.js";
import { isRecord } from "../wire/is-record.js";
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  isJsonSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  skipJsonSpace,
} from "../wire/json-chars.js";
import { closingQuote } from "../wire/json-string.js";
import { explicitSessionKey, sessionKey } from "./key.js";

/**
 * How much of a body is read for its session without parsing it (windowSessionKey): a
 * conversation's session key lies in its first messages (and what precedes them), and reading
 * this much costs well under a millisecond whatever the body's size.
 */
export const SESSION_WINDOW = 64 * 1024;

/**
 * The session of a body's text known without parsing it: an explicit id (a header, or the key a
 * proxy route derived from the body it had parsed) as the compactor reads it; else the session
 * key of its first SESSION_WINDOW characters (prefixSessionKey). Undefined when that window holds
 * no conversation.
 */
export function windowSessionKey(text: string, explicit: string | undefined): string | undefined {
  return explicitSessionKey(explicit) ?? prefixSessionKey(text.slice(0, SESSION_WINDOW));
}

/** The root members sessionKey reads besides the conversation. */
const READ = new Set(["metadata", "system", "instructions"]);

/**
 * The session key (§7) of a body of which only `text`, its beginning, is read: sessionKey of the
 * root members before the conversation array (`messages`, or a Responses body's `input`) and of
 * the conversation's elements that `text` holds whole. Members after the conversation are never
 * read, so the key depends only on what every turn of a conversation sends alike: its first
 * messages and what precedes them. It is the key the compactor derives whenever the explicit id
 * (`metadata.user_id`) and system text come before the conversation and its first system and
 * user messages lie within `text`; otherwise still one key per conversation. Undefined when
 * `text` holds neither a conversation nor an explicit id. Reads `text` once, parsing only the
 * values it keeps.
 */
export function prefixSessionKey(text: string): string | undefined {
  let at = skipJsonSpace(text, 0);
  if (codeAt(text, at) !== OPEN_BRACE) return undefined;
  const body: Record<string, unknown> = {};
  at++;
  for (;;) {
    at = skipJsonSpace(text, at);
    if (codeAt(text, at) !== QUOTE) break;
    const keyEnd = closingQuote(text, at);
    if (keyEnd < 0) break;
    const key = parsed(text.slice(at, keyEnd + 1));
    at = skipJsonSpace(text, keyEnd + 1);
    if (codeAt(text, at) !== COLON) break;
    at = skipJsonSpace(text, at + 1);
    if ((key === "messages" || key === "input") && codeAt(text, at) === OPEN_BRACKET) {
      body[key] = wholeElements(text, at);
      break;
    }
    const end = valueEnd(text, at);
    if (end < 0) break;
    if (typeof key === "string" && READ.has(key)) body[key] = parsed(text.slice(at, end));
    at = skipJsonSpace(text, end);
    if (codeAt(text, at) !== COMMA) break;
    at++;
  }
  const userId = isRecord(body.metadata) ? body.metadata.user_id : undefined;
  const conversation = body.messages !== undefined || body.input !== undefined;
  if (!conversation && explicitSessionKey(userId) === undefined) return undefined;
  return sessionKey(body);
}

/** The elements of the array opening at `open` that `text` holds whole, parsed. */
function wholeElements(text: string, open: number): unknown[] {
  const elements: unknown[] = [];
  let at = skipJsonSpace(text, open + 1);
  while (at < text.length && codeAt(text, at) !== CLOSE_BRACKET) {
    const end = valueEnd(text, at);
    if (end < 0) break;
    elements.push(parsed(text.slice(at, end)));
    at = skipJsonSpace(text, end);
    if (codeAt(text, at) !== COMMA) break;
    at = skipJsonSpace(text, at + 1);
  }
  return elements;
}

/** The offset just past the JSON value starting at `at`, or -1 when `text` ends inside it. */
function valueEnd(text: string, at: number): number {
  let depth = 0;
  for (let index = at; index < text.length; index++) {
    const code = codeAt(text, index);
    if (code === QUOTE) {
      const close = closingQuote(text, index);
      if (close < 0) return -1;
      if (depth === 0) return close + 1;
      index = close;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      // A number or literal ends where its container does.
      if (depth === 0) return index;
      depth--;
      if (depth === 0) return index + 1;
    } else if (depth === 0 && (code === COMMA || isJsonSpace(code))) {
      return index;
    }
  }
  return -1;
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}
