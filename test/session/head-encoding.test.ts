import { describe, expect, it } from "vitest";
import { decodeHead, encodeHead, type Head, internDecision } from "../../src/session/ledger.js";

const head: Head = {
  messages: 12,
  root: "3f1c0a9e5b7d2468ace013579bdf2468",
  prints: "a1b2c3".repeat(12),
  tool: true,
  outputs: [internDecision(["format"]), internDecision([])],
  calls: [internDecision(["mask"]), internDecision([])],
  at: 1_700_000_000_000,
  cost: {
    turns: 11,
    colds: 2,
    lastCold: 9,
    lastBreak: 10,
    warmRuns: 1,
    warmRunTurns: 7,
    since: 1_699_999_000_000,
    before: 20_480,
    after: 9_731,
    spent: 4_321.4,
    bypass: 7_654.3,
  },
};

describe("a head as text (the Redis encoding of the ledger)", () => {
  it("keeps the conversation's history the priced breaks read, to a tenth of a token", () => {
    expect(decodeHead(encodeHead(head))).toEqual(head);
  });

  it("reads a head without that history, or with a malformed one, as having none", () => {
    const { cost: _, ...bare } = head;
    expect(decodeHead(encodeHead(bare))).toEqual(bare);
    const broken = JSON.stringify({ ...JSON.parse(encodeHead(head)), c: [1, 2, 3] });
    expect(decodeHead(broken)).toEqual(bare);
  });

  it("reads a head written before roots and prints were kept as describing its messages by id", () => {
    const { r: _root, p: _prints, ...older } = JSON.parse(encodeHead(head));
    expect(decodeHead(JSON.stringify(older))).toEqual({ ...head, root: "", prints: "" });
  });

  it("reads a history written before the cold requests were placed as having no warm runs", () => {
    const encoded = JSON.parse(encodeHead(head));
    const older = JSON.stringify({ ...encoded, c: encoded.c.slice(0, 7) });
    expect(decodeHead(older)?.cost).toEqual({
      ...head.cost,
      lastCold: 0,
      lastBreak: 0,
      warmRuns: 0,
      warmRunTurns: 0,
    });
  });

  it("reads a history written before breaks were placed as having had none", () => {
    const encoded = JSON.parse(encodeHead(head));
    const older = JSON.stringify({ ...encoded, c: encoded.c.slice(0, 10) });
    expect(decodeHead(older)?.cost).toEqual({ ...head.cost, lastBreak: 0 });
  });
});
