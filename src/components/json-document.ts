import { mayBeJsonDocument } from "../content/json-limit.js";
import { codeAt } from "../text/char-code.js";
import { CLOSE_BRACE, OPEN_BRACE, OPEN_BRACKET, QUOTE, skipJsonSpace } from "../wire/json-chars.js";
import { type JsonToken, jsonTokens } from "./json-tokens.js";

/** A tool output that is exactly one JSON object or array (surrounding whitespace allowed). */
export interface JsonDocument {
  readonly text: string;
  readonly value: object;
  readonly tokens: readonly JsonToken[];
}

/**
 * Parses `text` as one JSON object or array; undefined when it is anything else, or longer than
 * the pipeline reads as a document (content/json-limit.ts).
 */
export function parseJsonDocument(text: string): JsonDocument | undefined {
  if (!mayBeJsonDocument(text) || !opensJsonDocument(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  return { text, value, tokens: jsonTokens(text) };
}

/** Characters that may open a value in an array (or close it, empty). */
const ARRAY_NEXT = new Set([...'"{[]-0123456789tfn'].map((char) => codeAt(char, 0)));

/**
 * Whether `text` opens as a JSON object or array does: its bracket after JSON whitespace, then
 * what may follow that bracket (a key or `}`; a value or `]`). A tool output that opens
 * otherwise (`[INFO] …`, `[build 12] …`) is not given to JSON.parse, which would throw at its
 * second token: the error it builds costs more than this look, once per output of a log.
 */
export function opensJsonDocument(text: string): boolean {
  let at = skipJsonSpace(text, 0);
  const open = codeAt(text, at);
  if (open !== OPEN_BRACE && open !== OPEN_BRACKET) return false;
  at = skipJsonSpace(text, at + 1);
  const next = codeAt(text, at);
  return open === OPEN_BRACE ? next === QUOTE || next === CLOSE_BRACE : ARRAY_NEXT.has(next);
}

/**
 * True when `JSON.parse` kept everything the text says: every number token denotes the same
 * decimal value as the double it parsed to (no precision lost beyond 2^53, no overflow to
 * Infinity; `1.0` and `1e3` are the same values as `1` and `1000`), and no object repeated a key
 * (a repeated key silently drops the earlier value).
 */
export function parsedExactly(document: JsonDocument): boolean {
  let keyTokens = 0;
  const { text, tokens } = document;
  for (const [position, token] of tokens.entries()) {
    if (token.kind === "number") {
      const spelled = text.slice(token.start, token.end);
      const parsed = Number(spelled);
      if (!Number.isFinite(parsed) || decimalKey(spelled) !== decimalKey(String(parsed))) {
        return false;
      }
    } else if (token.kind === "string") {
      const next = tokens[position + 1];
      if (next !== undefined && text[next.start] === ":") keyTokens += 1;
    }
  }
  return keyTokens === countKeys(document.value);
}

/** Canonical spelling of a decimal number: sign, significant digits, exponent. */
function decimalKey(spelled: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(spelled);
  if (match === null) return spelled;
  const [, sign = "", whole = "", fraction = "", exponent = "0"] = match;
  let digits = (whole + fraction).replace(/^0+/, "");
  let power = Number(exponent) - fraction.length;
  if (digits === "") return "0";
  while (digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    power += 1;
  }
  return `${sign}${digits}e${power}`;
}

/** Number of object keys anywhere in a parsed JSON value. */
function countKeys(root: unknown): number {
  let keys = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === "object" && value !== null) {
      for (const item of Object.values(value)) {
        keys += 1;
        pending.push(item);
      }
    }
  }
  return keys;
}
