import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ChainMemo, chainIds, messageDigest } from "../../src/session/chain.js";

/** The chain of `messages` computed from scratch, each message's JSON as written. */
function fresh(messages: readonly unknown[]): string[] {
  return chainIds(messages.map((message) => messageDigest(JSON.stringify(message), () => message)));
}

function remembered(memo: ChainMemo, session: string, messages: readonly unknown[]): string[] {
  const raws = messages.map((message) => JSON.stringify(message));
  return [...memo.chain(session, "received", raws, (index) => messages[index]).ids];
}

const message = fc.record({
  role: fc.constantFrom("user", "assistant", "tool"),
  content: fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.array(
      fc.record({
        type: fc.constant("text"),
        text: fc.string({ maxLength: 20 }),
        cache_control: fc.option(fc.constant({ type: "ephemeral" }), { nil: undefined }),
      }),
      { maxLength: 3 },
    ),
  ),
});

describe("conversation chains (§4a)", () => {
  it("share an id exactly as far as the messages are identical", () => {
    const a = [
      { role: "user", content: "one" },
      { role: "assistant", content: "two" },
    ];
    const b = [...a, { role: "user", content: "three" }];
    const c = [a[0], { role: "assistant", content: "TWO" }, b[2]];
    expect(fresh(b).slice(0, 2)).toEqual(fresh(a));
    expect(fresh(c)[0]).toBe(fresh(a)[0]);
    expect(fresh(c)[1]).not.toBe(fresh(a)[1]);
    expect(fresh(c)[2]).not.toBe(fresh(b)[2]);
  });

  it("leave moved cache breakpoints out of a message's bytes", () => {
    const marked = { role: "user", content: [{ type: "text", text: "hi", cache_control: {} }] };
    const plain = { role: "user", content: [{ type: "text", text: "hi" }] };
    expect(fresh([marked])).toEqual(fresh([plain]));
  });

  it("remembered by position give the ids computed from scratch, turn after turn", () => {
    const pool = fc.sample(message, { numRuns: 4, seed: 7 });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            // Drawn from a few, so a message comes back at an index another one held.
            messages: fc.array(
              fc.nat(pool.length - 1).map((n) => pool[n]),
              { maxLength: 8 },
            ),
            // Which messages come as a digest (a returned message as it was received).
            given: fc.array(fc.boolean(), { maxLength: 8 }),
            session: fc.nat(2),
            side: fc.constantFrom("received" as const, "returned" as const),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (turns) => {
          const memo = new ChainMemo(1 << 20);
          for (const { messages, given, session, side } of turns) {
            const digests = messages.map((item) => messageDigest(JSON.stringify(item), () => item));
            const raws = messages.map((item, index) =>
              given[index] ? undefined : JSON.stringify(item),
            );
            const chain = memo.chain(`s${session}`, side, raws, (index) => messages[index], {
              known: digests,
            });
            expect(chain.digests).toEqual(digests);
            expect(chain.ids).toEqual(fresh(messages));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keep several conversations of one session apart", () => {
    const memo = new ChainMemo(1 << 20);
    const a = [1, 2, 3].map((n) => ({ role: "user", content: `a${n}` }));
    const b = [1, 2, 3].map((n) => ({ role: "user", content: `b${n}` }));
    for (let turn = 0; turn < 3; turn++) {
      expect(remembered(memo, "shared", a)).toEqual(fresh(a));
      expect(remembered(memo, "shared", b)).toEqual(fresh(b));
    }
  });

  it("hash again a message that changed in the middle, and every id after it", () => {
    const memo = new ChainMemo(1 << 20);
    const before = [1, 2, 3, 4].map((n) => ({ role: "user", content: `m${n}` }));
    const after = before.map((item, n) => (n === 1 ? { ...item, content: "changed" } : item));
    const first = remembered(memo, "s", before);
    const second = remembered(memo, "s", after);
    expect(second).toEqual(fresh(after));
    expect(second[0]).toBe(first[0]);
    for (const n of [1, 2, 3]) expect(second[n]).not.toBe(first[n]);
  });

  it("take a given digest where a message is not spelled out", () => {
    const memo = new ChainMemo(1 << 20);
    const messages = [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
    ];
    const digests = messages.map((item) => messageDigest(JSON.stringify(item), () => item));
    const raws = [undefined, JSON.stringify(messages[1])];
    const chain = memo.chain("s", "returned", raws, (index) => messages[index], {
      known: digests,
    });
    expect(chain.ids).toEqual(chainIds(digests));
  });

  it("forget a held message where one comes as a digest, so its return is hashed again", () => {
    const memo = new ChainMemo(1 << 20);
    const head = { role: "user", content: "head" };
    const edited = { role: "tool", content: "[masked]" };
    const received = { role: "tool", content: "the whole output" };
    const digestOf = (item: unknown) => messageDigest(JSON.stringify(item), () => item);
    const turn = (second: unknown, given: boolean) =>
      memo.chain(
        "s",
        "returned",
        [JSON.stringify(head), given ? undefined : JSON.stringify(second)],
        (index) => [head, second][index],
        { known: [digestOf(head), digestOf(second)] },
      ).ids;
    turn(edited, false);
    turn(received, true);
    expect(turn(edited, false)).toEqual(fresh([head, edited]));
  });

  it("stay correct when nothing fits the memo", () => {
    const memo = new ChainMemo(1);
    const messages = [{ role: "user", content: "x".repeat(100) }];
    expect(remembered(memo, "s", messages)).toEqual(fresh(messages));
    expect(remembered(memo, "s", messages)).toEqual(fresh(messages));
  });
});
