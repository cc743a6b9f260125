import { expect, it } from "vitest";
import { updateSharedNumber } from "../../src/store/shared-number.js";
import type { Store } from "../../src/store/types.js";

/** Two clients of one deployment's store: the same store in one process, or two replicas. */
export interface SharedNumberClients {
  readonly a: Store;
  readonly b: Store;
}

const TTL_MS = 60_000;
const double = (value: number | undefined) => (value ?? 0) * 2;
const plusThree = (value: number | undefined) => (value ?? 0) + 3;

/** `store`'s compare-and-set, counting its calls: how many tries the updates took. */
function counted(store: Store) {
  const swaps = { calls: 0 };
  const client: Pick<Store, "swapSharedNumber"> = {
    swapSharedNumber: (name, expected, next, ttlMs) => {
      swaps.calls++;
      return store.swapSharedNumber(name, expected, next, ttlMs);
    },
  };
  return { client, swaps };
}

/**
 * The shared-number primitive (Store `sharedNumber`, `swapSharedNumber`) and the read-modify-write
 * built on it, as every backend must give them. `clients()` is called inside each test; `prefix`
 * keeps the names of one run apart from another's on a store that is not emptied between tests.
 */
export function sharedNumberContract(clients: () => SharedNumberClients, prefix = "n"): void {
  it("sets a number only from the value it still holds, and says what it holds otherwise", async () => {
    const { a, b } = clients();
    const name = `${prefix}-swap`;
    const steps = [
      await a.swapSharedNumber(name, 5, 10, TTL_MS),
      await a.swapSharedNumber(name, undefined, 10, TTL_MS),
      await b.swapSharedNumber(name, undefined, 11, TTL_MS),
      await b.swapSharedNumber(name, 7, 11, TTL_MS),
      await b.swapSharedNumber(name, 10, 12.5, TTL_MS),
    ];
    expect({ steps, a: await a.sharedNumber(name), b: await b.sharedNumber(name) }).toEqual({
      steps: [
        { swapped: false, current: undefined },
        { swapped: true, current: 10 },
        { swapped: false, current: 10 },
        { swapped: false, current: 10 },
        { swapped: true, current: 12.5 },
      ],
      a: 12.5,
      b: 12.5,
    });
  });

  it("two clients updating from the same belief give the result of both steps, in either order", async () => {
    const { a, b } = clients();
    const name = `${prefix}-race`;
    const rounds = [];
    let value = await updateSharedNumber(a, name, { expected: undefined, ttlMs: TTL_MS }, () => 1);
    for (let round = 0; round < 10; round++) {
      const first = counted(a);
      const second = counted(b);
      // Both believe `value`: both first tries race for it, and one of them must try again.
      const options = { expected: value, ttlMs: TTL_MS };
      const results = await Promise.all([
        updateSharedNumber(first.client, name, options, double),
        updateSharedNumber(second.client, name, options, plusThree),
      ]);
      const after = await b.sharedNumber(name);
      const doubledFirst = [double(value), plusThree(double(value))];
      const doubledLast = [double(plusThree(value)), plusThree(value)];
      rounds.push({
        both: [doubledFirst, doubledLast].some(
          ([doubled, added]) => results[0] === doubled && results[1] === added,
        ),
        final: after === Math.max(...results),
        tries: first.swaps.calls + second.swaps.calls,
      });
      value = after ?? 0;
    }
    expect(rounds).toEqual(
      Array.from({ length: 10 }, () => ({ both: true, final: true, tries: 3 })),
    );
  });

  it("sixteen updates at once, from two clients, are each applied once", async () => {
    const { a, b } = clients();
    const name = `${prefix}-count`;
    const increment = (value: number | undefined) => (value ?? 0) + 1;
    const options = { expected: undefined, ttlMs: TTL_MS };
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        updateSharedNumber(index % 2 === 0 ? a : b, name, options, increment),
      ),
    );
    expect({
      final: await a.sharedNumber(name),
      results: [...results].sort((x, y) => x - y),
    }).toEqual({ final: 16, results: Array.from({ length: 16 }, (_, index) => index + 1) });
  });
}
