import type { Span } from "./types.js";

/**
 * A linear scanner over request text that JSON.parse has already accepted. It records where the
 * values the pipeline may rewrite sit in the text, so a response can be the original text with
 * only those spans replaced (§3): no second parse, no re-serialisation.
 *
 * String spans under `messages` are keyed by their path below the array, joined with "/":
 * `3/content` (message 3's content string), `3/content/1/text`, `3/content/1/content`,
 * `3/content/1/content/0/text`.
 */
export interface BodyScan {
  /** Value spans of the root object's members (last occurrence wins, as in JSON.parse). */
  readonly members: Map<string, Span>;
  /** Offset of the root object's closing `}`. */
  readonly close: number;
  /** Spans of the elements of the `messages` array, in order. */
  readonly messages: Span[];
  /** Spans of rewritable string literals (quotes included), keyed by path below `messages`. */
  readonly strings: Map<string, Span>;
  /** A key repeats inside the scanned structure: spans may not match JSON.parse's view. */
  readonly ambiguous: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** Scans only the root object's members. Undefined when the text is not a JSON object. */
export function scanTopLevel(
  text: string,
): { members: Map<string, Span>; close: number } | undefined {
  const scan = scanBody(text, false);
  return scan && { members: scan.members, close: scan.close };
}

/** Scans a body; undefined when the text is not a JSON object. Expects text JSON.parse accepts. */
export function scanBody(text: string, withMessages = true): BodyScan | undefined {
  const scanner = new Scanner(text);
  const position = scanner.skipSpace(0);
  if (text.charCodeAt(position) !== 123 /* { */) return undefined;
  const members = new Map<string, Span>();
  const messages: Span[] = [];
  const strings = new Map<string, Span>();
  const end = scanner.object(position, (key, start) => {
    if (members.has(key)) scanner.ambiguous = true;
    const end =
      withMessages && key === "messages" && text.charCodeAt(start) === 91 /* [ */
        ? scanner.messagesArray(start, messages, strings)
        : scanner.skipValue(start);
    members.set(key, { start, end });
    return end;
  });
  return { members, close: end - 1, messages, strings, ambiguous: scanner.ambiguous };
}

type MemberVisitor = (key: string, valueStart: number) => number;

class Scanner {
  ambiguous = false;

  constructor(readonly text: string) {}

  skipSpace(position: number): number {
    const { text } = this;
    let at = position;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === 32 || code === 10 || code === 13 || code === 9) at++;
      else return at;
    }
  }

  /** From an opening quote to just past the closing quote. */
  skipString(position: number): number {
    const { text } = this;
    let at = position + 1;
    for (;;) {
      const quote = text.indexOf('"', at);
      if (quote < 0) throw new SyntaxError("unterminated string");
      let backslashes = 0;
      for (let back = quote - 1; text.charCodeAt(back) === BACKSLASH; back--) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      at = quote + 1;
    }
  }

  /** Past any value starting at `position` (no leading space). */
  skipValue(position: number): number {
    const { text } = this;
    const first = text.charCodeAt(position);
    if (first === QUOTE) return this.skipString(position);
    if (first !== 123 && first !== 91) {
      let at = position;
      for (;;) {
        const code = text.charCodeAt(at);
        if (
          code === 44 ||
          code === 125 ||
          code === 93 ||
          code === 32 ||
          code === 10 ||
          code === 13 ||
          code === 9 ||
          Number.isNaN(code)
        ) {
          return at;
        }
        at++;
      }
    }
    let depth = 0;
    let at = position;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) {
        at = this.skipString(at);
        continue;
      }
      if (code === 123 || code === 91) depth++;
      else if (code === 125 || code === 93) {
        depth--;
        if (depth === 0) return at + 1;
      } else if (Number.isNaN(code)) throw new SyntaxError("unterminated value");
      at++;
    }
  }

  /** Walks an object at `position` (`{`), calling `visit` for each member; returns past `}`. */
  object(position: number, visit: MemberVisitor): number {
    const { text } = this;
    let at = this.skipSpace(position + 1);
    if (text.charCodeAt(at) === 125) return at + 1;
    for (;;) {
      const keyEnd = this.skipString(at);
      const rawKey = text.slice(at + 1, keyEnd - 1);
      const key = rawKey.includes("\\") ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
      at = this.skipSpace(keyEnd);
      at = this.skipSpace(at + 1); // past ':'
      at = this.skipSpace(visit(key, at));
      if (text.charCodeAt(at) === 125) return at + 1;
      at = this.skipSpace(at + 1); // past ','
    }
  }

  /** Walks an array at `position` (`[`), calling `visit` with each element's index and start. */
  array(position: number, visit: (index: number, start: number) => number): number {
    const { text } = this;
    let at = this.skipSpace(position + 1);
    if (text.charCodeAt(at) === 93) return at + 1;
    for (let index = 0; ; index++) {
      at = this.skipSpace(visit(index, at));
      if (text.charCodeAt(at) === 93) return at + 1;
      at = this.skipSpace(at + 1);
    }
  }

  messagesArray(position: number, messages: Span[], strings: Map<string, Span>): number {
    return this.array(position, (index, start) => {
      const end = this.container(start, `${index}`, 0, strings);
      messages.push({ start, end });
      return end;
    });
  }

  /**
   * Records rewritable strings inside a message (depth 0), a content block (depth 1) or a block
   * nested in a tool_result (depth 2).
   */
  container(position: number, path: string, depth: number, strings: Map<string, Span>): number {
    if (this.text.charCodeAt(position) !== 123) return this.skipValue(position);
    const seen = new Set<string>();
    return this.object(position, (key, start) => {
      if (seen.has(key)) this.ambiguous = true;
      seen.add(key);
      const code = this.text.charCodeAt(start);
      const isContent = key === "content" && depth < 2;
      if (code === QUOTE && (isContent || (key === "text" && depth > 0))) {
        const end = this.skipString(start);
        strings.set(`${path}/${key}`, { start, end });
        return end;
      }
      if (code === 91 && isContent) {
        return this.array(start, (index, elementStart) =>
          this.container(elementStart, `${path}/${key}/${index}`, depth + 1, strings),
        );
      }
      return this.skipValue(start);
    });
  }
}
