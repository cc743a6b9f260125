import { describe, expect, it } from "vitest";
import { LastRead } from "../../src/text/last-read.js";

describe("LastRead", () => {
  it("answers the last text read with the same tag from memory, anything else afresh", () => {
    const last = new LastRead<number>(4);
    let reads = 0;
    const read = (text: string, tag = "") => last.read(text, tag, () => ++reads);
    expect(read("long text")).toBe(1);
    // An equal text, not the same string.
    expect(read(["long", "text"].join(" "))).toBe(1);
    expect(read("long text", "other")).toBe(2);
    expect(read("long text", "other")).toBe(2);
    expect(read("long text")).toBe(3);
    // Too short to remember, and it does not displace the one remembered.
    expect(read("abc")).toBe(4);
    expect(read("abc")).toBe(5);
    expect(read("long text")).toBe(3);
  });
});
