import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { extract, isProgressLine } from "../../src/components/extract.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import type { ToolCall } from "../../src/wire/types.js";
import { fakeContext, idOf, toolOutputs } from "../support/component-context.js";
import { stagedDiff as stagedFixture } from "../support/staged-diff.js";

const defaults = componentsSchema.parse({}).extract;
const noMinimum = { ...defaults, min_tokens: 0 };

function run(text: string, mode: MarkerMode = "full", options = noMinimum) {
  const outputs = toolOutputs([text]);
  const context = fakeContext(outputs, { mode });
  return { result: extract.reduce(outputs[0]!, options, context) as string | undefined, context };
}

const warning = "WARNING: disk almost full on /dev/sda1";
const frame = ['  File "/app/service/handlers.py", line 88, in handle', "    raise TimeoutError()"];

const traceback = "Traceback (most recent call last):";
const reset = "connection reset by peer, retrying in 1s";

/** A staged diff of two files whose hunks delete blank lines (lone `-`) and repeat lines. */
const stagedDiff = stagedFixture([
  "+def main():",
  "+    value = compute_the_value(argument, retries=3)",
  "+    return value",
  "+",
  "+",
  "+    value = compute_the_value(argument, retries=3)",
]);

describe("extract", () => {
  it.each([
    [
      "progress lines",
      [
        "Downloading model.bin",
        "[====>     ] 45%",
        "[==========] 100%",
        "Downloading shard 2  12.3 MB/s",
        " 45%|████▌     | 45/100 [00:01<00:02, 30.1it/s]",
        "   ━━━━━━━━━━━━━━━━━━━━ 1.2/1.2 MB 3.4 MB/s eta 0:00:00",
        "⠋ Installing dependencies",
        "|",
        "  73%",
        "(12/100) 12%",
        "done",
      ].join("\n"),
      "Downloading model.bin\n… (9 progress lines)\ndone",
    ],
    [
      "adjacent repeats",
      `${`${reset}\n`.repeat(5)}connected`,
      `${reset}\n… (repeated 4 lines)\nconnected`,
    ],
    [
      "a repeated block, keeping its error lines",
      [traceback, ...frame, "retrying", traceback, ...frame, "gave up"].join("\n"),
      [traceback, ...frame, "retrying", traceback, "… (repeated 1 line)", frame[1], "gave up"].join(
        "\n",
      ),
    ],
    [
      "alternating blocks",
      "alpha beta gamma\ndelta epsilon\nalpha beta gamma\ndelta epsilon\nalpha beta gamma\ndelta epsilon",
      "alpha beta gamma\ndelta epsilon\n… (repeated 4 lines)",
    ],
    [
      "progress and repeats in one run",
      `${reset}\nstep two done\n[=====>    ] 50%\n${reset}\nstep two done\nfinished`,
      `${reset}\nstep two done\n… (1 progress line, repeated 2 lines)\nfinished`,
    ],
    [
      "an output of progress lines only, keeping its first and last line",
      `|\n${"[=====>    ] 45%\n".repeat(6)}   ━━━━━━━━━━ 1.2/1.2 MB 3.4 MB/s eta 0:00:00`,
      "|\n… (6 progress lines)\n   ━━━━━━━━━━ 1.2/1.2 MB 3.4 MB/s eta 0:00:00",
    ],
    [
      "an error line on a progress bar",
      "[=====>    ] 50% error: checksum mismatch\n[=====>    ] 50% done downloading the thing",
      "[=====>    ] 50% error: checksum mismatch\n… (1 progress line)",
    ],
  ])("projects %s, noting each omission in place", (_, text, projected) => {
    const { result, context } = run(text);
    const id = idOf(text);
    expect(result).toBe(`${projected}\n<<cg:${id}>>`);
    expect(context.stashed.get(id)).toBe(text);
    expect(run(text, "off").result).toBe(projected);
  });

  it.each([
    ["short non-adjacent repeats", "if x:\n    }\nelse:\n    }\nend"],
    ["a short repeated block", "a\nb\nc\na\nb"],
    ["short adjacent repeats", "tick\ntick\ntick\ntock"],
    ["blank runs", "a\n\n\n\nb\n \n"],
    ["a repeated error line", `start\n${warning}\nmiddle\n${warning}\nend`],
    ["a repeated error block", `${traceback}\nValueError: bad input\n`.repeat(3)],
    ["a progress line whose note would be longer", "step one\n|\nstep two"],
    ["plain lines", "one\ntwo\nthree"],
    ["a percent inside prose", "coverage went up to 45% this week"],
    ["a rate inside prose", "the link sustains 12 MB/s on average"],
    ["empty", ""],
  ])("leaves %s alone", (_, text) => {
    expect(run(text).result).toBeUndefined();
  });

  it.each<[string, Partial<ToolCall> | undefined]>([
    ["git diff --cached", { input: { command: "git diff --cached" } }],
    ["a script", { input: { command: "./show-changes.sh" } }],
    ["no call", undefined],
  ])("returns a two-file diff with deleted blank lines intact (%s)", (_, call) => {
    for (const mode of ["full", "off"] as const) {
      const outputs = toolOutputs([call ? { text: stagedDiff, call } : { text: stagedDiff }]);
      expect(outputs[0]?.contentClass).toBe("diff");
      expect(
        extract.reduce(outputs[0]!, noMinimum, fakeContext(outputs, { mode })),
      ).toBeUndefined();
    }
  });

  const pair = `${reset}\n${reset}`;
  it.each<[MarkerMode, string]>([
    ["full", `${reset}\n… (repeated 1 line)\n<<cg:${idOf(pair)}>>`],
    ["summary", `${reset}\n… (repeated 1 line)\n\u27eacg\u27eb`],
    ["off", `${reset}\n… (repeated 1 line)`],
  ])("marks in %s mode", (mode, expected) => {
    const { result, context } = run(pair, mode);
    expect(result).toBe(expected);
    expect(context.stashed.size).toBe(mode === "full" ? 1 : 0);
  });

  it("puts the marker alone on the last line when the text ends with a newline", () => {
    const text = `${pair}\n`;
    expect(run(text).result).toBe(`${reset}\n… (repeated 1 line)\n<<cg:${idOf(text)}>>`);
  });

  it("respects min_tokens", () => {
    expect(run(pair, "full", defaults).result).toBeUndefined();
    const large = `${Array.from({ length: 200 }, (_, i) => `line ${i} of the build log`).join("\n")}\n${reset}\n${reset}`;
    expect(run(large, "off", defaults).result).toBe(
      `${large.slice(0, -reset.length - 1)}\n… (repeated 1 line)`,
    );
  });

  it("leaves an output of one line as it is, whatever the line", () => {
    // A bar, a megabyte of base64: a lone line is the last non-blank one, never dropped.
    for (const line of ["[######    ] 45% eta 0:12", "QUJD/+9=".repeat(150_000), reset]) {
      expect(isProgressLine(line) || line.length > 0).toBe(true);
      expect(run(line).result).toBeUndefined();
      expect(run(`${line}\n`).result).toBeUndefined();
    }
  });

  it.each([
    ["plain text", false, "Compiling src/main.rs"],
    ["a pytest progress line", false, "tests/test_api.py ....F..                 [ 45%]"],
    ["a bar with eta", true, "[######    ] eta 0:12"],
    ["an error on a bar", false, "[####      ] 40% fatal: early EOF"],
    ["a megabyte of open brackets", false, "[==".repeat(350_000)],
  ])("isProgressLine: %s", (_, expected, line) => {
    expect(isProgressLine(line)).toBe(expected);
  });
});

const corpus = resolve(import.meta.dirname, "../../../shared/corpus");
const searchOutput = resolve(corpus, "reference/search_output.json");
if (!existsSync(searchOutput))
  console.warn(`extract corpus tests skipped: ${searchOutput} is absent`);

describe.skipIf(!existsSync(searchOutput))("extract on real shell outputs", () => {
  const items = existsSync(searchOutput)
    ? (JSON.parse(readFileSync(searchOutput, "utf8")) as Array<{ cmd: string; out: string }>)
    : [];
  const errorWord = /error|fail|exception|panic|fatal|traceback|warning/i;

  it("keeps every error line, only drops lines, and notes every omission in place", () => {
    const note = /^… \((?:\d+ progress lines?)?(?:, )?(?:repeated \d+ lines?)?\)$/;
    let changed = 0;
    // Printed by a script, so every output is the log its shape says, not the fact its command was.
    for (const { out } of items) {
      const outputs = toolOutputs([{ text: out, call: { input: { command: "./run.sh" } } }]);
      const result = extract.reduce(outputs[0]!, noMinimum, fakeContext(outputs, { mode: "off" }));
      if (result === undefined) continue;
      changed++;
      expect(typeof result).toBe("string");
      const original = out.split("\n");
      const lines = (result as string).split("\n");
      for (const line of original) if (errorWord.test(line)) expect(lines).toContain(line);
      // Walk both: each original line is either the next output line or inside a noted run.
      let at = 0;
      for (const line of lines) {
        if (note.test(line) && original[at] !== line) {
          const [, counts = ""] = /\((.*)\)/.exec(line) ?? [];
          const skipped = [...counts.matchAll(/\d+/g)].reduce((sum, [n]) => sum + Number(n), 0);
          at += skipped;
          continue;
        }
        expect(original[at]).toBe(line);
        at++;
      }
      expect(at).toBe(original.length);
      expect((result as string).length).toBeLessThan(out.length);
    }
    expect(changed).toBeGreaterThan(0);
  });
});
