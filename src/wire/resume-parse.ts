import { codeAt } from "../text/char-code.js";
import { isRecord } from "./is-record.js";
import { CLOSE_BRACKET, COMMA, skipJsonSpace } from "./json-chars.js";
import type { BodyScan } from "./json-scan.js";

/** An earlier body as parsed and scanned. */
export interface ParsedBefore {
  /** The text it was parsed from. */
  readonly text: string;
  readonly scan: BodyScan;
  /** The root member that holds the conversation array. */
  readonly conversation: string;
  /** What JSON.parse gave: its conversation's elements are parallel to `scan.messages`. */
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * JSON.parse(text) for a body whose first characters, through the end of its conversation's
 * element `shared − 1`, are those of `before`'s text (a warm turn re-sends its history byte for
 * byte). Only the new bytes are parsed: the elements after the shared ones, and the members
 * after the conversation unless they are `before`'s byte for byte (an agent re-sends its tools
 * and system prompt too). The conversation array is `before`'s shared elements followed by the
 * ones parsed; every other member is `before`'s where its bytes are. Equal bytes parse to equal
 * values, so the result is the value JSON.parse(text) gives. Undefined when that cannot be told
 * this way (after the shared elements, neither a `,` and a further element nor the array's `]`;
 * what is parsed does not parse): the caller parses the whole text.
 *
 * The values taken from `before` are its own objects, shared by both results: neither may be
 * changed.
 */
export function parseResumed(
  text: string,
  before: ParsedBefore,
  shared: number,
): Record<string, unknown> | undefined {
  const { scan, conversation } = before;
  const array = scan.members.get(conversation);
  const last = scan.messages[shared - 1];
  const elements = before.body[conversation];
  if (array === undefined || last === undefined || !Array.isArray(elements)) return undefined;
  if (shared > elements.length) return undefined;
  let rest = skipJsonSpace(text, last.end);
  if (codeAt(text, rest) === COMMA) {
    rest = skipJsonSpace(text, rest + 1);
    // `[a, ]` is not JSON, though `[]` is.
    if (codeAt(text, rest) === CLOSE_BRACKET) return undefined;
  } else if (codeAt(text, rest) !== CLOSE_BRACKET) return undefined;
  const kept = elements.slice(0, shared);
  // The members after the conversation, as they were: only the new elements are parsed.
  const tail = before.text.slice(array.end);
  if (text.length - tail.length > rest && text.endsWith(tail)) {
    // What lies between parses as one array only if it closes the conversation right there.
    const added = parsed(`[${text.slice(rest, text.length - tail.length)}`);
    if (Array.isArray(added)) return withMember(before.body, conversation, kept.concat(added));
  }
  const body = parsed(`${text.slice(0, array.start + 1)}${text.slice(rest)}`);
  if (!isRecord(body)) return undefined;
  const added = body[conversation];
  if (!Array.isArray(added)) return undefined;
  body[conversation] = kept.concat(added);
  return body;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A copy of `body` with `key` holding `value`, its members in the same order. */
function withMember(
  body: Readonly<Record<string, unknown>>,
  key: string,
  value: unknown,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(body)) {
    // As JSON.parse makes a member: `__proto__` too is an own property.
    Object.defineProperty(copy, name, {
      value: name === key ? value : body[name],
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return copy;
}
