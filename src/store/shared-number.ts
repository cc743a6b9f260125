import { StoreError } from "../errors/store-error.js";
import type { Store } from "./types.js";

/**
 * Compare-and-sets an update may try. Each one that fails does so because another writer's update
 * landed in between, so the writers as a whole always progress; past this many, the update is
 * reported as failed rather than retried without end.
 */
export const UPDATE_ATTEMPTS = 16;

export interface SharedNumberUpdate {
  /**
   * What the caller believes the number holds (undefined: unset), read earlier. The first
   * compare-and-set assumes it: a belief that is still true costs one call, a stale one a second.
   */
  readonly expected: number | undefined;
  /** How long the number is kept after the update. */
  readonly ttlMs: number;
}

/**
 * Atomic read-modify-write of the shared number `name`: `update` applied to what it holds, by
 * compare-and-set with retry, so concurrent updates — on one replica or many — are each applied
 * once, in some order, and none is lost. `update` must be a function of the value alone (it may
 * run again on a newer value); the number is compared by value, so a value that went away and
 * came back is the same value to it. Resolves to the number after this update; rejects with the
 * store's error, or with a StoreError after UPDATE_ATTEMPTS lost races.
 */
export async function updateSharedNumber(
  store: Pick<Store, "swapSharedNumber">,
  name: string,
  options: SharedNumberUpdate,
  update: (current: number | undefined) => number,
): Promise<number> {
  let expected = options.expected;
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const next = update(expected);
    const swap = await store.swapSharedNumber(name, expected, next, options.ttlMs);
    if (swap.swapped) return next;
    expected = swap.current;
  }
  throw new StoreError(
    "swapSharedNumber",
    `${name} changed under ${UPDATE_ATTEMPTS} updates in a row`,
  );
}
