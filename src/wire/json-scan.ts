import { codeAt } from "../text/char-code.js";
import { CLOSE_BRACKET, OPEN_BRACKET } from "./json-chars.js";
import { Scanner } from "./json-scanner.js";
import type { Span } from "./types.js";

/** Where a wire shape keeps its conversation, and which of its strings the scanner locates. */
export interface ScanKeys {
  /** The root member that holds the conversation array (`messages`, a Responses body's `input`). */
  readonly conversation: string;
  /** Whether an item's own `output` (a string, or an array of parts) is rewritable too. */
  readonly itemOutput: boolean;
}

/** A conversation in `messages`, whose messages and blocks hold `content` and `text` strings. */
const MESSAGES: ScanKeys = { conversation: "messages", itemOutput: false };

/**
 * A linear scanner over request text that JSON.parse has already accepted. It records where the
 * values the pipeline may rewrite sit in the text, so a response can be the original text with
 * only those spans replaced (§3): no second parse, no re-serialisation.
 *
 * String spans under the conversation array (`messages`, or a Responses body's `input`) are
 * keyed by their path below the array, joined with "/": `3/content` (message 3's content
 * string), `3/content/1/text`, `3/content/1/content`, `3/content/1/content/0/text`; with
 * `itemOutput` also an item's `output` (`3/output`, `3/output/0/text`). The agent's call
 * arguments are located too (§3): an OpenAI message's `3/tool_calls/0/function/arguments`
 * string, an Anthropic block's `3/content/1/input` (the span of its object), a Responses item's
 * `3/arguments` and `3/input` strings.
 *
 * It runs on every request, so it is written as plain loops that allocate only what they
 * record: strings are crossed with indexOf, paths are built only for recorded strings.
 */
export interface BodyScan {
  /** The text scanned: every span below is of it. */
  readonly text: string;
  /** Value spans of the root object's members (last occurrence wins, as in JSON.parse). */
  readonly members: Map<string, Span>;
  /** Offset of the root object's closing `}`. */
  readonly close: number;
  /** Spans of the elements of the conversation array (`messages` or `input`), in order. */
  readonly messages: Span[];
  /** Spans of rewritable string literals (quotes included), keyed by path below the array. */
  readonly strings: Map<string, Span>;
  /** How many of `strings` the messages before each message hold, parallel to `messages`. */
  readonly stringsBefore: readonly number[];
  /** A key repeats inside the scanned structure: spans may not match JSON.parse's view. */
  readonly ambiguous: boolean;
}

/** Scans only the root object's members. Undefined when the text is not a JSON object. */
export function scanTopLevel(
  text: string,
): { members: Map<string, Span>; close: number } | undefined {
  const scan = scanBody(text);
  return scan && { members: scan.members, close: scan.close };
}

/**
 * Scans a body and the strings of its conversation array (`keys`, a wire shape's; `messages`
 * when not given); undefined when the text is not a JSON object. Expects text JSON.parse accepts.
 */
export function scanBody(text: string, keys: ScanKeys = MESSAGES): BodyScan | undefined {
  return new Scanner(text, keys.itemOutput).body(keys.conversation);
}

/**
 * The scan of `text` when its first characters, through the end of `prior`'s message
 * `shared − 1`, are those of `prior.text` (a warm turn re-sends its history byte for byte): what
 * `prior` found before that point is taken as found, and the scan goes on from there. Equal to
 * scanBody(text, keys); undefined where scanBody would be, or where `prior` cannot be resumed
 * (it found its conversation ambiguous, or fewer messages).
 */
export function resumeScan(
  text: string,
  keys: ScanKeys,
  prior: BodyScan,
  shared: number,
): BodyScan | undefined {
  if (prior.ambiguous || shared < 1 || shared > prior.messages.length) return undefined;
  return new Scanner(text, keys.itemOutput).resume(keys.conversation, prior, shared);
}

/**
 * Spans of the elements of the array whose span in `text` is `array` (text JSON.parse accepted);
 * undefined when the span does not hold an array.
 */
export function arrayElements(text: string, array: Span): Span[] | undefined {
  if (codeAt(text, array.start) !== OPEN_BRACKET) return undefined;
  const scanner = new Scanner(text, false);
  scanner.at = array.start + 1;
  scanner.space();
  const elements: Span[] = [];
  while (codeAt(text, scanner.at) !== CLOSE_BRACKET) {
    const start = scanner.at;
    scanner.skipValue();
    elements.push({ start, end: scanner.at });
    scanner.next();
  }
  return elements;
}
