import { codeAt } from "../text/char-code.js";
import { isRecord } from "./is-record.js";
import { CLOSE_BRACKET, COMMA, skipJsonSpace } from "./json-chars.js";
import type { BodyScan } from "./json-scan.js";

/** An earlier body as parsed and scanned: its conversation array's elements, and where they sat. */
export interface ParsedBefore {
  readonly scan: BodyScan;
  /** The root member that holds the conversation array. */
  readonly conversation: string;
  /** The elements JSON.parse gave for that array, parallel to `scan.messages`. */
  readonly messages: readonly unknown[];
}

/**
 * JSON.parse(text) for a body whose first characters, through the end of its conversation's
 * element `shared − 1`, are those of `before`'s text (a warm turn re-sends its history byte for
 * byte): only the text without those elements is parsed, and the conversation array is
 * `before`'s elements followed by the ones parsed. Equal bytes parse to equal values, so the
 * result is the value JSON.parse(text) gives, at the cost of the new bytes. Undefined when that
 * cannot be told this way (the text after the shared elements is not a `,` and a further element,
 * or the array's `]`; the rest does not parse): the caller parses the whole text.
 *
 * The elements are `before`'s own objects, shared by both results: neither may be changed.
 */
export function parseResumed(
  text: string,
  before: ParsedBefore,
  shared: number,
): Record<string, unknown> | undefined {
  const { scan, conversation, messages } = before;
  const array = scan.members.get(conversation);
  const last = scan.messages[shared - 1];
  if (array === undefined || last === undefined || shared > messages.length) return undefined;
  let rest = skipJsonSpace(text, last.end);
  if (codeAt(text, rest) === COMMA) {
    rest = skipJsonSpace(text, rest + 1);
    // `[a, ]` is not JSON, though `[]` is.
    if (codeAt(text, rest) === CLOSE_BRACKET) return undefined;
  } else if (codeAt(text, rest) !== CLOSE_BRACKET) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(`${text.slice(0, array.start + 1)}${text.slice(rest)}`);
  } catch {
    return undefined;
  }
  if (!isRecord(body)) return undefined;
  const parsed = body[conversation];
  if (!Array.isArray(parsed)) return undefined;
  body[conversation] = messages.slice(0, shared).concat(parsed);
  return body;
}
