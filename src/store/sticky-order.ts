/**
 * Adds `ids` to `set` as its newest members (an id already present moves to the end), then drops
 * the oldest until at most `cap` remain. Sets iterate in insertion order, oldest first.
 */
export function addNewest(set: Set<string>, ids: Iterable<string>, cap: number): void {
  for (const id of ids) {
    set.delete(id);
    set.add(id);
  }
  for (const oldest of set) {
    if (set.size <= cap) break;
    set.delete(oldest);
  }
}
