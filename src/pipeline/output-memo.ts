import type { StashEntry } from "../store/types.js";
import { SizedMemo } from "./sized-memo.js";

/** A memoised output-scoped result: the replacement (undefined = unchanged) and its stashes. */
export interface MemoEntry {
  readonly text: string | undefined;
  readonly stashes: readonly StashEntry[];
}

/**
 * Results of output-scoped components, which are pure functions of (text, call, options, mode):
 * agents re-send the same outputs every turn, so a warm request reduces only what is new.
 * One cache keyed by the text itself, holding each component's results for it, bounded by the
 * length of the texts, replacements and stashes it holds.
 */
export class OutputMemo {
  readonly #cache: SizedMemo<Map<string, MemoEntry>>;

  constructor(private readonly maxChars = 32 * 1024 * 1024) {
    this.#cache = new SizedMemo(maxChars, (text, entries) => {
      let size = text.length + 64;
      for (const entry of entries.values()) {
        size += (entry.text?.length ?? 0) + 64;
        for (const stash of entry.stashes) {
          if (stash.value !== text) size += stash.value.length;
        }
      }
      return size;
    });
  }

  get(table: string, text: string, callKey: string): MemoEntry | undefined {
    return this.#cache.get(text)?.get(`${table}\u0000${callKey}`);
  }

  set(table: string, text: string, callKey: string, entry: MemoEntry): void {
    if (text.length * 2 > this.maxChars) return;
    // A new map, so the memo accounts for its size as it grows.
    const entries = new Map(this.#cache.get(text));
    entries.set(`${table}\u0000${callKey}`, entry);
    this.#cache.set(text, entries);
  }
}
