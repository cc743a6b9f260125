import { Gauge, type Registry } from "prom-client";
import type { Store, StoreStats } from "../store/types.js";

export interface StoreGauges {
  /** Reads the store's size, once per scrape however many series ask. */
  refresh(): Promise<StoreStats | undefined>;
}

/**
 * `cg_store_entries` and `cg_store_bytes`, read from `store.stats()` at scrape time. A failed
 * read calls `onError` and leaves both series out of that scrape rather than report stale sizes.
 */
export function storeGauges(registry: Registry, store: Store, onError: () => void): StoreGauges {
  let pending: Promise<StoreStats | undefined> | undefined;
  const refresh = (): Promise<StoreStats | undefined> => {
    pending ??= store
      .stats()
      .catch(() => {
        onError();
        return undefined;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  const labels = { backend: store.backend };
  const gauge = (name: string, help: string, pick: (stats: StoreStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["backend"],
      registers: [registry],
      async collect() {
        const stats = await refresh();
        if (stats) this.set(labels, pick(stats));
        else this.reset();
      },
    });
  gauge("cg_store_entries", "Originals held by the store.", (stats) => stats.entries);
  gauge("cg_store_bytes", "Bytes of originals held by the store.", (stats) => stats.bytes);
  return { refresh };
}
