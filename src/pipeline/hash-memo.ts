import { SizedMemo } from "./sized-memo.js";

/**
 * Content ids memoised by content: agents re-send the same outputs every turn, and the pipeline
 * asks for the id of each one several times per request (sticky checks, markers, stash keys),
 * so a warm request hashes only what is new. Keys are the texts themselves, bounded by their
 * total length.
 */
/**
 * `hash` with the ids of long texts remembered for as long as the returned function lives: one
 * request's. Texts longer than `longChars` are too large for the shared memo (it keeps nothing
 * over half its budget), yet the pipeline asks for the id of a multi-megabyte output several
 * times; held only per request, they are never kept beyond it.
 */
export function rememberLongTexts(
  hash: (text: string) => string,
  longChars: number,
): (text: string) => string {
  const ids = new Map<string, string>();
  return (text) => {
    if (text.length <= longChars) return hash(text);
    let id = ids.get(text);
    if (id === undefined) {
      id = hash(text);
      ids.set(text, id);
    }
    return id;
  };
}

export function memoiseHash(
  hash: (text: string) => string,
  maxChars = 32 * 1024 * 1024,
): (text: string) => string {
  const memo = new SizedMemo<string>(maxChars, (key) => key.length + 16);
  return (text) => {
    let id = memo.get(text);
    if (id === undefined) {
      id = hash(text);
      memo.set(text, id);
    }
    return id;
  };
}
