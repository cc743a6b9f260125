import { SizedMemo } from "./sized-memo.js";

/**
 * Content ids memoised by content: agents re-send the same outputs every turn, and the pipeline
 * asks for the id of each one several times per request (sticky checks, markers, stash keys),
 * so a warm request hashes only what is new. Keys are the texts themselves, bounded by their
 * total length.
 */
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
