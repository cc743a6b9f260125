import { codeAt } from "../text/char-code.js";
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  skipJsonSpace,
} from "./json-chars.js";
import { closingQuote } from "./json-string.js";
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

/** Bits of the keys a container may hold once; a repeat makes the scan ambiguous. */
const KEY_CONTENT = 1;
const KEY_TEXT = 2;
/** A Responses item's `output` (function_call_output, custom_tool_call_output). */
const KEY_OUTPUT = 4;
/** An OpenAI assistant message's `tool_calls`. */
const KEY_TOOL_CALLS = 8;
/** A Responses function_call's `arguments`. */
const KEY_ARGUMENTS = 16;
/** An Anthropic tool_use block's `input` object; a Responses custom_tool_call's `input` string. */
const KEY_INPUT = 32;

class Scanner {
  ambiguous = false;
  readonly messages: Span[] = [];
  readonly strings = new Map<string, Span>();
  at = 0;

  constructor(
    readonly text: string,
    /** Whether `output` is a rewritable key (Responses items). */
    readonly outputs: boolean,
  ) {}

  body(conversation: string | undefined): BodyScan | undefined {
    const { text } = this;
    this.space();
    if (codeAt(text, this.at) !== OPEN_BRACE) return undefined;
    const members = new Map<string, Span>();
    this.at++;
    this.space();
    while (codeAt(text, this.at) !== CLOSE_BRACE) {
      const key = this.key();
      if (members.has(key)) this.ambiguous = true;
      const start = this.at;
      if (key === conversation && codeAt(text, start) === OPEN_BRACKET) {
        if (this.messages.length > 0) this.ambiguous = true;
        this.messagesArray();
      } else {
        this.skipValue();
      }
      members.set(key, { start, end: this.at });
      this.next();
    }
    return {
      text,
      members,
      close: this.at,
      messages: this.messages,
      strings: this.strings,
      ambiguous: this.ambiguous,
    };
  }

  space(): void {
    this.at = skipJsonSpace(this.text, this.at);
  }

  /** Past a `,` (and the space around it) to the next member or element, or onto the closer. */
  next(): void {
    this.space();
    if (codeAt(this.text, this.at) === COMMA) {
      this.at++;
      this.space();
    }
  }

  /** Reads `"key"` and the `:` after it; leaves `at` on the value. */
  key(): string {
    const { text } = this;
    const start = this.at;
    this.skipString();
    const raw = text.slice(start + 1, this.at - 1);
    this.space();
    this.at++; // ':'
    this.space();
    return raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
  }

  /**
   * Reads `"key"` and the `:` after it, like key(), but only tells whether the key is `content`,
   * `text` or (in Responses items) `output`, or none: no string is built for the many keys a
   * message holds.
   */
  keyBit(): number {
    const { text } = this;
    const start = this.at + 1;
    this.skipString();
    const end = this.at - 1;
    this.space();
    this.at++; // ':'
    this.space();
    const length = end - start;
    if (length === 7 && text.startsWith("content", start)) return KEY_CONTENT;
    if (length === 4 && text.startsWith("text", start)) return KEY_TEXT;
    if (this.outputs && length === 6 && text.startsWith("output", start)) return KEY_OUTPUT;
    if (length === 10 && text.startsWith("tool_calls", start)) return KEY_TOOL_CALLS;
    if (length === 9 && text.startsWith("arguments", start)) return KEY_ARGUMENTS;
    if (length === 5 && text.startsWith("input", start)) return KEY_INPUT;
    for (let at = start; at < end; at++) {
      if (codeAt(text, at) === BACKSLASH) {
        // An escaped spelling (`"cont\u0065nt"`) names the same key once decoded.
        return keyBitOf(JSON.parse(text.slice(start - 1, end + 1)) as string, this.outputs);
      }
    }
    return 0;
  }

  /** From an opening quote to just past the closing quote. */
  skipString(): void {
    const quote = closingQuote(this.text, this.at);
    if (quote < 0) throw new SyntaxError("unterminated string");
    this.at = quote + 1;
  }

  /** Past any value starting at `at`. */
  skipValue(): void {
    const { text } = this;
    const first = codeAt(text, this.at);
    if (first === QUOTE) {
      this.skipString();
      return;
    }
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      for (;;) {
        const code = codeAt(text, this.at);
        if (
          code === COMMA ||
          code === CLOSE_BRACE ||
          code === CLOSE_BRACKET ||
          code === 32 ||
          code === 10 ||
          code === 13 ||
          code === 9 ||
          Number.isNaN(code)
        ) {
          return;
        }
        this.at++;
      }
    }
    let depth = 0;
    for (;;) {
      const code = codeAt(text, this.at);
      if (code === QUOTE) {
        this.skipString();
        continue;
      }
      if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        if (--depth === 0) {
          this.at++;
          return;
        }
      } else if (Number.isNaN(code)) throw new SyntaxError("unterminated value");
      this.at++;
    }
  }

  messagesArray(): void {
    const { text } = this;
    this.at++;
    this.space();
    for (let index = 0; codeAt(text, this.at) !== CLOSE_BRACKET; index++) {
      const start = this.at;
      this.container(index, -1, -1, "content");
      this.messages.push({ start, end: this.at });
      this.next();
    }
    this.at++;
  }

  /**
   * Records rewritable strings inside a message (block -1), a content block (inner -1) or a
   * block nested in a tool_result: a message's and a block's `content`, a block's `text`, a
   * Responses item's `output`. `parent` names the array a block sits in (`content`, `output`).
   */
  container(message: number, block: number, inner: number, parent: string): void {
    const { text } = this;
    if (codeAt(text, this.at) !== OPEN_BRACE) {
      this.skipValue();
      return;
    }
    const depth = block < 0 ? 0 : inner < 0 ? 1 : 2;
    let seen = 0;
    this.at++;
    this.space();
    while (codeAt(text, this.at) !== CLOSE_BRACE) {
      const bit = this.keyBit();
      if (seen & bit) this.ambiguous = true;
      seen |= bit;
      const code = codeAt(text, this.at);
      const isContent = (bit === KEY_CONTENT && depth < 2) || (bit === KEY_OUTPUT && depth === 0);
      const callString = depth === 0 && (bit === KEY_ARGUMENTS || bit === KEY_INPUT);
      const callObject = depth === 1 && bit === KEY_INPUT && code === OPEN_BRACE;
      if (code === QUOTE && callString) {
        const start = this.at;
        this.skipString();
        this.strings.set(`${message}/${KEY_NAMES[bit]}`, { start, end: this.at });
      } else if (callObject) {
        const start = this.at;
        this.skipValue();
        this.strings.set(path(message, block, -1, parent, "input"), { start, end: this.at });
      } else if (depth === 0 && bit === KEY_TOOL_CALLS && code === OPEN_BRACKET) {
        this.toolCalls(message);
      } else if (code === QUOTE && (isContent || (bit === KEY_TEXT && depth > 0))) {
        const start = this.at;
        this.skipString();
        this.strings.set(path(message, block, inner, parent, KEY_NAMES[bit] as string), {
          start,
          end: this.at,
        });
      } else if (code === OPEN_BRACKET && isContent) {
        this.at++;
        this.space();
        const named = KEY_NAMES[bit] as string;
        for (let index = 0; codeAt(text, this.at) !== CLOSE_BRACKET; index++) {
          if (depth === 0) this.container(message, index, -1, named);
          else this.container(message, block, index, parent);
          this.next();
        }
        this.at++;
      } else {
        this.skipValue();
      }
      this.next();
    }
    this.at++;
  }

  /**
   * Records the `function.arguments` string of each element of an OpenAI message's
   * `tool_calls` array (`at` on its `[`): `message/tool_calls/K/function/arguments`.
   */
  toolCalls(message: number): void {
    const { text } = this;
    this.at++;
    this.space();
    for (let call = 0; codeAt(text, this.at) !== CLOSE_BRACKET; call++) {
      if (codeAt(text, this.at) !== OPEN_BRACE) this.skipValue();
      else
        this.members((key) => {
          if (key !== "function" || codeAt(text, this.at) !== OPEN_BRACE) return false;
          this.members((inner) => {
            if (inner !== "arguments" || codeAt(text, this.at) !== QUOTE) return false;
            const start = this.at;
            this.skipString();
            const at = `${message}/tool_calls/${call}/function/arguments`;
            if (this.strings.has(at)) this.ambiguous = true;
            this.strings.set(at, { start, end: this.at });
            return true;
          });
          return true;
        });
      this.next();
    }
    this.at++;
  }

  /**
   * Walks an object's members (`at` on its `{`): `visit` reads a member's value and returns
   * true, or returns false to have it skipped.
   */
  members(visit: (key: string) => boolean): void {
    const { text } = this;
    this.at++;
    this.space();
    while (codeAt(text, this.at) !== CLOSE_BRACE) {
      const key = this.key();
      if (!visit(key)) this.skipValue();
      this.next();
    }
    this.at++;
  }
}

const KEY_NAMES: Readonly<Record<number, string>> = {
  [KEY_CONTENT]: "content",
  [KEY_TEXT]: "text",
  [KEY_OUTPUT]: "output",
  [KEY_TOOL_CALLS]: "tool_calls",
  [KEY_ARGUMENTS]: "arguments",
  [KEY_INPUT]: "input",
};

/** The bit of a decoded key (`outputs`: whether an item's `output` is rewritable). */
function keyBitOf(key: string, outputs: boolean): number {
  for (const [bit, name] of Object.entries(KEY_NAMES)) {
    if (name === key && (name !== "output" || outputs)) return Number(bit);
  }
  return 0;
}

function path(message: number, block: number, inner: number, parent: string, key: string): string {
  if (block < 0) return `${message}/${key}`;
  if (inner < 0) return `${message}/${parent}/${block}/${key}`;
  return `${message}/${parent}/${block}/content/${inner}/${key}`;
}
