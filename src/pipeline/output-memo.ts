import { LRUCache } from "lru-cache";
import type { StashEntry } from "../store/types.js";

/** A memoised output-scoped result: the replacement (undefined = unchanged) and its stashes. */
export interface MemoEntry {
  readonly text: string | undefined;
  readonly stashes: readonly StashEntry[];
}

type Table = LRUCache<string, Map<string, MemoEntry>>;

/**
 * Results of output-scoped components, which are pure functions of (text, call, options, mode):
 * agents re-send the same outputs every turn, so a warm request reduces only what is new.
 * One table per component and mode, keyed by the text itself, each bounded by the length of
 * the texts it holds.
 */
export class OutputMemo {
  readonly #tables = new Map<string, Table>();

  constructor(private readonly maxCharsPerTable = 16 * 1024 * 1024) {}

  get(table: string, text: string, callKey: string): MemoEntry | undefined {
    return this.#tables.get(table)?.get(text)?.get(callKey);
  }

  set(table: string, text: string, callKey: string, entry: MemoEntry): void {
    let cache = this.#tables.get(table);
    if (!cache) {
      cache = new LRUCache({
        maxSize: this.maxCharsPerTable,
        sizeCalculation: (entries, key) => {
          let size = key.length + 64;
          for (const item of entries.values()) size += (item.text?.length ?? 0) + 64;
          return size;
        },
      });
      this.#tables.set(table, cache);
    }
    const entries = cache.get(text) ?? new Map<string, MemoEntry>();
    entries.set(callKey, entry);
    cache.set(text, entries);
  }
}
