import { describe, expect, it } from "vitest";
import {
  type CacheState,
  overBudget,
  parseCacheHeader,
  treatRequest,
} from "../../src/cache/policy.js";
import { cacheSchema } from "../../src/config/schema.js";
import { EMPTY_LEDGER, type SessionLedger } from "../../src/session/ledger.js";

const seenAt = (at: number): SessionLedger => ({ ...EMPTY_LEDGER, lastRequestAt: at });
const freeze = cacheSchema.parse({});
const ignore = cacheSchema.parse({ policy: "ignore" });

describe("treatRequest (§4a)", () => {
  it.each<[string, typeof freeze, CacheState | undefined, SessionLedger, number, object]>([
    ["the header says cold", freeze, "cold", seenAt(0), 1, { state: "cold", reason: "header" }],
    [
      "the header says warm, idle or not",
      freeze,
      "warm",
      seenAt(0),
      10_000_000,
      { state: "warm", reason: "header" },
    ],
    ["policy ignore", ignore, undefined, seenAt(0), 1, { state: "cold", reason: "policy" }],
    [
      "an unknown history",
      freeze,
      undefined,
      EMPTY_LEDGER,
      1,
      { state: "warm", reason: "unknown" },
    ],
    [
      "the previous request 300 s ago",
      freeze,
      undefined,
      seenAt(0),
      300_000,
      { state: "warm", reason: "recent" },
    ],
    [
      "the previous request over 300 s ago",
      freeze,
      undefined,
      seenAt(0),
      300_001,
      { state: "cold", reason: "ttl" },
    ],
  ])("%s", (_, config, header, ledger, now, expected) => {
    expect(treatRequest(config, header, ledger, now)).toEqual(expected);
  });

  const learned = (session: number | undefined, deployment: number | undefined): SessionLedger => ({
    ...seenAt(0),
    learned: { session, deployment },
  });
  it.each([
    {
      name: "idle past a learned 108 s, within the TTL",
      ledger: learned(108_000, 252_000),
      now: 120_000,
      expected: { state: "cold", reason: "observed" },
    },
    {
      name: "idle within a learned 108 s",
      ledger: learned(108_000, 252_000),
      now: 100_000,
      expected: { state: "warm", reason: "recent" },
    },
    {
      name: "idle past the deployment's 252 s, no session evidence",
      ledger: learned(undefined, 252_000),
      now: 260_000,
      expected: { state: "cold", reason: "observed" },
    },
    {
      name: "idle past the TTL within a learned 500 s",
      ledger: learned(500_000, undefined),
      now: 450_000,
      expected: { state: "warm", reason: "observed" },
    },
    {
      name: "idle past both the TTL and a learned 108 s",
      ledger: learned(108_000, undefined),
      now: 400_000,
      expected: { state: "cold", reason: "ttl" },
    },
    {
      name: "idle past a learned 500 s",
      ledger: learned(500_000, undefined),
      now: 500_001,
      expected: { state: "cold", reason: "ttl" },
    },
  ])("learned lifetime: $name", ({ ledger, now, expected }) => {
    expect(treatRequest(freeze, undefined, ledger, now)).toEqual(expected);
  });

  it.each([
    ["cold", "cold"],
    [" Warm ", "warm"],
    ["hot", undefined],
    [null, undefined],
    [undefined, undefined],
  ] as const)("reads the header %j as %j", (value, expected) => {
    expect(parseCacheHeader(value)).toBe(expected);
  });

  it("re-decides over the context budget only when a budget is set", () => {
    expect(overBudget(freeze, 1_000_000)).toBe(false);
    const budget = cacheSchema.parse({ context_budget_tokens: 1000 });
    expect([overBudget(budget, 1000), overBudget(budget, 1001)]).toEqual([false, true]);
  });
});
