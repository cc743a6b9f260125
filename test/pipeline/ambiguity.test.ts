import { describe, expect, it } from "vitest";
import { ambiguousRecords } from "../../src/pipeline/ambiguity.js";
import { newEntry } from "../../src/pipeline/report-entries.js";
import { slotLanes } from "../../src/pipeline/slot-state.js";
import type { ContentString } from "../../src/wire/string-collector.js";
import type { Transcript } from "../../src/wire/transcript.js";
import type { Slot } from "../../src/wire/types.js";

/** A body's strings in order: `[message, text]` for a message's own text, `[message, text, true]` for a tool output. */
function transcriptOf(items: readonly (readonly [number, string, boolean?])[]): Transcript {
  const strings: ContentString[] = [];
  const outputs: Slot[] = [];
  let offset = 0;
  for (const [messageIndex, text, tool] of items) {
    const span = { start: offset, end: offset + text.length + 2 };
    offset = span.end + 1;
    if (tool) {
      outputs.push({
        kind: "output",
        index: outputs.length,
        messageIndex,
        span,
        literal: "string",
        text,
        call: undefined,
        isError: false,
        contentClass: "text",
      });
    }
    strings.push({
      path: `${strings.length}`,
      span,
      text,
      messageIndex,
      ...(tool ? { tool: { call: undefined, isError: false } } : {}),
    });
  }
  return {
    provider: "openai",
    strings,
    slots: { output: outputs, call: [] },
    outputs,
    messageCount: Math.max(0, ...items.map(([message]) => message + 1)),
    goal: "",
    agentText: [],
  };
}

/** Outputs `changes` reformatted to the given texts, each with an `rf:` record. */
function reformatted(transcript: Transcript, changes: Readonly<Record<number, string>>) {
  const state = slotLanes(transcript.slots, (text) => `id-${text.length}`).output;
  for (const [index, text] of Object.entries(changes)) {
    state.apply(Number(index), text, {
      name: "textclean",
      kind: "reformat",
      mode: "off",
      pending: new Map(),
      entry: newEntry("textclean", "reformat", "off"),
    });
  }
  state.recordReformats();
  return state;
}

describe("ambiguousRecords: an rf: record must name one original within its message", () => {
  it.each([
    {
      case: "two outputs of one message cleaned to one text from different originals",
      items: [
        [1, "a  b", true],
        [1, "a\tb", true],
      ] as const,
      changes: { 0: "a b", 1: "a b" },
      ambiguous: [0, 1],
    },
    {
      case: "the same two outputs in different messages",
      items: [
        [1, "a  b", true],
        [2, "a\tb", true],
      ] as const,
      changes: { 0: "a b", 1: "a b" },
      ambiguous: [],
    },
    {
      case: "two outputs of one message cleaned to one text from the same original",
      items: [
        [1, "a  b", true],
        [1, "a  b", true],
      ] as const,
      changes: { 0: "a b", 1: "a b" },
      ambiguous: [],
    },
    {
      case: "a cleaned text another string of its message reads verbatim",
      items: [
        [1, "a b"],
        [1, "a  b", true],
      ] as const,
      changes: { 0: "a b" },
      ambiguous: [0],
    },
    {
      case: "that string in another message",
      items: [
        [0, "a b"],
        [1, "a  b", true],
      ] as const,
      changes: { 0: "a b" },
      ambiguous: [],
    },
    {
      case: "a string of the message as long as the cleaned text but not the same",
      items: [
        [1, "x y"],
        [1, "a  b", true],
      ] as const,
      changes: { 0: "a b" },
      ambiguous: [],
    },
    {
      case: "an unchanged output that reads as another's cleaned text",
      items: [
        [1, "a  b", true],
        [1, "a b", true],
      ] as const,
      changes: { 0: "a b" },
      ambiguous: [0],
    },
  ])("$case", ({ items, changes, ambiguous }) => {
    const transcript = transcriptOf(items);
    const state = reformatted(transcript, changes);
    expect([...ambiguousRecords(transcript, state, undefined)].sort()).toEqual(ambiguous);
  });

  it("strings of messages a summary replaced are not read", () => {
    const transcript = transcriptOf([
      [1, "a b"],
      [1, "a  b", true],
    ]);
    const state = reformatted(transcript, { 0: "a b" });
    const replacement = {
      from: 1,
      to: 2,
      role: "user",
      message: "s",
      tokensBefore: 9,
      tokensAfter: 1,
    } as const;
    expect([...ambiguousRecords(transcript, state, replacement)]).toEqual([]);
  });
});
