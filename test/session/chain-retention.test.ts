import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const child = resolve(import.meta.dirname, "child/chain-retention.ts");

describe("the conversation chain memo", () => {
  it("holds copies of the messages it remembers, not slices that keep their bodies alive", {
    timeout: 60_000,
  }, async () => {
    // 40 bodies of 4 M characters: 160 MB if each remembered slice kept its body, in 48 MiB.
    const { stdout } = await run(process.execPath, [
      "--import",
      "tsx",
      "--max-old-space-size=48",
      "--expose-gc",
      child,
      "40",
      "4000000",
    ]);
    expect(Number(stdout)).toBeLessThan(32 * 1024 * 1024);
  });
});
