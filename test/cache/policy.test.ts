import { describe, expect, it } from "vitest";
import {
  type CacheState,
  overBudget,
  parseCacheHeader,
  type RequestHistory,
  treatRequest,
} from "../../src/cache/policy.js";
import { cacheSchema } from "../../src/config/schema.js";
import { EMPTY_LEDGER, type SessionLedger } from "../../src/session/ledger.js";

const seenAt = (at: number): SessionLedger => ({ ...EMPTY_LEDGER, lastRequestAt: at });
const freeze = cacheSchema.parse({});
const ignore = cacheSchema.parse({ policy: "ignore" });

/** A request at `now` with nothing else known of it. */
function later(now: number): RequestHistory {
  return { now, first: false, diverged: false, agentCompaction: false, known: false };
}

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
    expect(treatRequest(config, header, ledger, later(now))).toEqual(expected);
  });

  it.each([
    {
      name: "a session's first request, though the ledger saw the session just now",
      history: { ...later(1), first: true },
      expected: { state: "cold", reason: "first" },
    },
    {
      name: "a first request the router says is warm",
      header: "warm" as const,
      history: { ...later(1), first: true },
      expected: { state: "warm", reason: "header" },
    },
    {
      name: "a request that left its conversation at an already-sent message",
      history: { ...later(1), diverged: true },
      expected: { state: "cold", reason: "diverged" },
    },
    {
      name: "a diverged request past the TTL: the whole cache is cold",
      history: { ...later(300_001), diverged: true },
      expected: { state: "cold", reason: "ttl" },
    },
    {
      name: "the agent's own compaction, past the TTL",
      history: { ...later(300_001), agentCompaction: true, known: true },
      expected: { state: "warm", reason: "recent" },
    },
    {
      name: "the agent's own compaction of a conversation the ledger does not hold",
      header: "cold" as const,
      history: { ...later(1), agentCompaction: true },
      expected: { state: "warm", reason: "unknown" },
    },
  ])("live sessions: $name", ({ header, history, expected }) => {
    expect(treatRequest(freeze, header, seenAt(0), history)).toEqual(expected);
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
    expect(treatRequest(freeze, undefined, ledger, later(now))).toEqual(expected);
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
