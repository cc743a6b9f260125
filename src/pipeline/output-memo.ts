import type { StashEntry } from "../store/types.js";
import { SizedMemo } from "./sized-memo.js";

/** A memoised output-scoped result: the replacement (undefined = unchanged) and its stashes. */
export interface MemoEntry {
  readonly text: string | undefined;
  readonly stashes: readonly StashEntry[];
}

/** The results held for one text, by component and call, and the size they count for. */
interface TextResults {
  readonly byCall: Map<string, MemoEntry>;
  size: number;
}

/**
 * Results of output-scoped components, which are pure functions of (text, call, options, mode):
 * agents re-send the same outputs every turn, so a warm request reduces only what is new.
 * One cache keyed by the text itself, holding each component's results for it, bounded by the
 * length of the texts, replacements and stashes it holds. A text's results grow in place, each
 * counted as it comes, so one more costs the same however many calls the text was seen with.
 */
export class OutputMemo {
  readonly #cache: SizedMemo<TextResults>;

  constructor(private readonly maxChars = 32 * 1024 * 1024) {
    this.#cache = new SizedMemo(maxChars, (_, results) => results.size);
  }

  get(table: string, text: string, callKey: string): MemoEntry | undefined {
    return this.#cache.get(text)?.byCall.get(`${table}\u0000${callKey}`);
  }

  set(table: string, text: string, callKey: string, entry: MemoEntry): void {
    if (text.length * 2 > this.maxChars) return;
    const key = `${table}\u0000${callKey}`;
    const add = (results: TextResults) => {
      const previous = results.byCall.get(key);
      if (previous !== undefined) results.size -= sizeOf(text, previous);
      results.byCall.set(key, entry);
      results.size += sizeOf(text, entry);
    };
    if (this.#cache.update(text, add)) return;
    const results: TextResults = { byCall: new Map(), size: text.length + 64 };
    add(results);
    this.#cache.set(text, results);
  }
}

/** What one result adds to its text's size: the replacement and the stashes other than the text. */
function sizeOf(text: string, entry: MemoEntry): number {
  let size = (entry.text?.length ?? 0) + 64;
  for (const stash of entry.stashes) {
    if (stash.value !== text) size += stash.value.length;
  }
  return size;
}
