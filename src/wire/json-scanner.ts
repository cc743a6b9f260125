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
import type { BodyScan } from "./json-scan.js";
import { closingQuote } from "./json-string.js";
import {
  KEY_ARGUMENTS,
  KEY_CONTENT,
  KEY_INPUT,
  KEY_NAMES,
  KEY_OUTPUT,
  KEY_TEXT,
  KEY_TOOL_CALLS,
  keyBitOf,
  path,
} from "./scan-keys.js";
import type { Span } from "./types.js";

/**
 * The body scanner's loops (json-scan.ts says what it finds): plain loops over the text that
 * allocate only what they record; strings are crossed with indexOf, paths are built only for
 * recorded strings.
 */
export class Scanner {
  ambiguous = false;
  readonly messages: Span[] = [];
  readonly strings = new Map<string, Span>();
  readonly stringsBefore: number[] = [];
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
    this.at++;
    this.space();
    return this.rootMembers(new Map(), conversation);
  }

  /** scanBody, taking `prior`'s first `shared` messages and what precedes them as found. */
  resume(conversation: string, prior: BodyScan, shared: number): BodyScan | undefined {
    const members = new Map<string, Span>();
    let start: number | undefined;
    for (const [key, span] of prior.members) {
      if (key === conversation) {
        start = span.start;
        break;
      }
      members.set(key, span);
    }
    if (start === undefined) return undefined;
    const strings = shared < prior.messages.length ? prior.stringsBefore[shared] : undefined;
    const kept = strings ?? prior.strings.size;
    let count = 0;
    for (const [key, span] of prior.strings) {
      if (count++ === kept) break;
      this.strings.set(key, span);
    }
    for (let index = 0; index < shared; index++) {
      this.messages.push(prior.messages[index] as Span);
      this.stringsBefore.push(prior.stringsBefore[index] as number);
    }
    this.at = (prior.messages[shared - 1] as Span).end;
    this.next();
    this.elements(shared);
    members.set(conversation, { start, end: this.at });
    this.next();
    return this.rootMembers(members, conversation);
  }

  /** The root object's members from `at` on, `members` those already read. */
  rootMembers(members: Map<string, Span>, conversation: string | undefined): BodyScan {
    const { text } = this;
    while (codeAt(text, this.at) !== CLOSE_BRACE) {
      const key = this.key();
      if (members.has(key)) this.ambiguous = true;
      const start = this.at;
      if (key === conversation && codeAt(text, start) === OPEN_BRACKET) {
        if (this.messages.length > 0) this.ambiguous = true;
        this.at++;
        this.space();
        this.elements(0);
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
      stringsBefore: this.stringsBefore,
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

  /** The conversation's elements from element `from` on (`at` on it), and past its `]`. */
  elements(from: number): void {
    const { text } = this;
    for (let index = from; codeAt(text, this.at) !== CLOSE_BRACKET; index++) {
      const start = this.at;
      this.stringsBefore.push(this.strings.size);
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
