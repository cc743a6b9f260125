import { createHmac } from "node:crypto";
import { codeAt } from "../text/char-code.js";

/** Summary-mode sentinel: marks where content was compacted; resolves to nothing. */
export const SENTINEL = "\u27eacg\u27eb";
/** The expand hint H appended by offloaders in full mode (§5). */
export const EXPAND_HINT = " [full output: call context_guru_expand]";

const MARKER = /<<cg:[A-Za-z0-9_-]{1,64}>>/;
/** The same marker as it may appear inside raw JSON text, `<` and `>` possibly \u-escaped. */
const RAW_MARKER =
  /(?:<|\\u003[cC])(?:<|\\u003[cC])cg:([A-Za-z0-9_-]{1,64})(?:>|\\u003[eE])(?:>|\\u003[eE])/g;

export function markerFor(id: string): string {
  return `<<cg:${id}>>`;
}

/** Marker ids in a decoded string, in order of appearance (duplicates kept). */
export function markerIds(text: string): string[] {
  // Read with indexOf rather than a global pattern: it runs on every change an offloader makes.
  const ids: string[] = [];
  let at = text.indexOf("<<cg:");
  while (at >= 0) {
    const start = at + 5;
    let end = start;
    while (end - start < 64 && isIdChar(codeAt(text, end))) end++;
    if (end > start && text.startsWith(">>", end)) ids.push(text.slice(start, end));
    at = text.indexOf("<<cg:", at + 1);
  }
  return ids;
}

/** `[A-Za-z0-9_-]`, the characters of a marker id. */
function isIdChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45
  );
}

/** Marker ids in raw JSON text, escaped or not. */
export function rawMarkerIds(json: string): string[] {
  return Array.from(json.matchAll(RAW_MARKER), (match) => match[1] as string);
}

/** True when text already carries a full marker or the summary sentinel (never compact again). */
export function carriesMarker(text: string): boolean {
  return text.includes(SENTINEL) || (text.includes("<<cg:") && MARKER.test(text));
}

/**
 * Content ids (§6): the first 16 lowercase hex chars of HMAC-SHA-256 of the exact UTF-8 bytes
 * under the deployment's marker key, so a client cannot test whether some content is stashed by
 * hashing it, and an id is a capability that appears only in its owner's compacted body.
 */
export function contentHasher(hashKey: string): (text: string) => string {
  return (text) => createHmac("sha256", hashKey).update(text, "utf8").digest("hex").slice(0, 16);
}
