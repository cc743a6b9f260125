import type { PutOptions, StashEntry, Store, StoreStats } from "./types.js";

/**
 * The store when `store.enabled` is false: keeps nothing and says so (`persists` false), so the
 * pipeline writes no full-mode markers and reduces nothing that would need one.
 */
export class NopStore implements Store {
  readonly backend = "nop";
  readonly persists = false;

  async put(
    _session: string,
    _entries: readonly StashEntry[],
    _options?: PutOptions,
  ): Promise<void> {}

  async get(_session: string, _key: string): Promise<string | undefined> {
    return undefined;
  }

  async sticky(_session: string): Promise<ReadonlySet<string>> {
    return new Set();
  }

  async addSticky(_session: string, _ids: readonly string[]): Promise<void> {}

  async ready(): Promise<boolean> {
    return true;
  }

  async stats(): Promise<StoreStats> {
    return { entries: 0, bytes: 0 };
  }

  async close(): Promise<void> {}
}
