import { closingQuote } from "../wire/json-string.js";

/** Lexical tokens of a JSON text, each a half-open range of UTF-16 offsets into that text. */
export type JsonTokenKind = "punctuation" | "string" | "number" | "literal";

export interface JsonToken {
  readonly kind: JsonTokenKind;
  readonly start: number;
  readonly end: number;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const PUNCTUATION = new Set(["{", "}", "[", "]", ",", ":"]);
const NUMBER_CHAR = /[0-9+\-.eE]/;
const LETTER = /[a-z]/;

/**
 * Splits JSON text into tokens, skipping insignificant whitespace. Meant for text that
 * `JSON.parse` accepted: it checks lexical shape only (strings closed, known characters), and
 * throws a SyntaxError on anything it does not recognise.
 */
export function jsonTokens(text: string): JsonToken[] {
  const tokens: JsonToken[] = [];
  let position = 0;
  while (position < text.length) {
    const char = text[position] as string;
    if (WHITESPACE.has(char)) {
      position += 1;
    } else if (PUNCTUATION.has(char)) {
      tokens.push({ kind: "punctuation", start: position, end: position + 1 });
      position += 1;
    } else if (char === '"') {
      const end = stringEnd(text, position);
      tokens.push({ kind: "string", start: position, end });
      position = end;
    } else if (char === "-" || (char >= "0" && char <= "9")) {
      const end = runEnd(text, position, NUMBER_CHAR);
      tokens.push({ kind: "number", start: position, end });
      position = end;
    } else if (LETTER.test(char)) {
      const end = runEnd(text, position, LETTER);
      tokens.push({ kind: "literal", start: position, end });
      position = end;
    } else {
      throw new SyntaxError(`unexpected character at offset ${position}`);
    }
  }
  return tokens;
}

/** Offset just past the closing quote of the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  const quote = closingQuote(text, start);
  if (quote < 0) throw new SyntaxError(`unterminated string at offset ${start}`);
  return quote + 1;
}

function runEnd(text: string, start: number, pattern: RegExp): number {
  let position = start + 1;
  while (position < text.length && pattern.test(text[position] as string)) position += 1;
  return position;
}

/** The tokens' text joined without the whitespace between them: a byte-exact minify. */
export function joinTokens(text: string, tokens: readonly JsonToken[]): string {
  let result = "";
  for (const token of tokens) result += text.slice(token.start, token.end);
  return result;
}

/** One element of an array, or one property of an object, as a range of tokens. */
export interface JsonMember {
  /** The key's string token, for object properties. */
  readonly key: JsonToken | undefined;
  /** Index of the value's first token. */
  readonly first: number;
  /** Index just past the value's last token. */
  readonly end: number;
}

/**
 * The members of the array or object whose opening token is `tokens[open]`, and the index of
 * its closing token.
 */
export function containerMembers(
  text: string,
  tokens: readonly JsonToken[],
  open: number,
): { members: JsonMember[]; close: number } {
  const members: JsonMember[] = [];
  const isObject = text[tokens[open]?.start ?? -1] === "{";
  let position = open + 1;
  while (position < tokens.length) {
    const token = tokens[position] as JsonToken;
    const char = text[token.start];
    if (char === "]" || char === "}") return { members, close: position };
    if (char === ",") {
      position += 1;
      continue;
    }
    const key = isObject ? token : undefined;
    const first = isObject ? position + 2 : position;
    const end = valueEnd(text, tokens, first);
    members.push({ key, first, end });
    position = end;
  }
  throw new SyntaxError("unterminated container");
}

/** Index just past the value starting at token `first`. */
function valueEnd(text: string, tokens: readonly JsonToken[], first: number): number {
  let depth = 0;
  let position = first;
  do {
    const token = tokens[position];
    if (token === undefined) throw new SyntaxError("unterminated value");
    const char = text[token.start];
    if (token.kind === "punctuation" && (char === "[" || char === "{")) depth += 1;
    else if (token.kind === "punctuation" && (char === "]" || char === "}")) depth -= 1;
    position += 1;
  } while (depth > 0);
  return position;
}
