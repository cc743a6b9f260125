import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { extract, isProgressLine } from "../../src/components/extract.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { fakeContext, idOf, toolOutputs } from "../support/component-context.js";

const defaults = componentsSchema.parse({}).extract;
const noMinimum = { ...defaults, min_tokens: 0 };

function run(text: string, mode: MarkerMode = "full", options = noMinimum) {
  const outputs = toolOutputs([text]);
  const context = fakeContext(outputs, { mode });
  return { result: extract.reduce(outputs[0]!, options, context) as string | undefined, context };
}

const warning = "WARNING: disk almost full on /dev/sda1";
const frame = ['  File "/app/service/handlers.py", line 88, in handle', "    raise TimeoutError()"];

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
      "Downloading model.bin\ndone",
    ],
    ["blank runs", "a\n\n\n\nb\n \n", "a\n\nb\n \n"],
    ["adjacent repeats", "tick\ntick\ntick\ntock", "tick\ntock"],
    [
      "a repeated long line",
      `start\n${warning}\nmiddle\n${warning}\nend`,
      `start\n${warning}\nmiddle\nend`,
    ],
    [
      "a repeated block",
      [
        "Traceback (most recent call last):",
        ...frame,
        "retrying",
        "Traceback (most recent call last):",
        ...frame,
        "gave up",
      ].join("\n"),
      ["Traceback (most recent call last):", ...frame, "retrying", "gave up"].join("\n"),
    ],
    [
      "alternating blocks",
      "alpha beta gamma\ndelta epsilon\nalpha beta gamma\ndelta epsilon\nalpha beta gamma\ndelta epsilon",
      "alpha beta gamma\ndelta epsilon",
    ],
    [
      "an error line on a progress bar",
      "[=====>    ] 50% error: checksum mismatch\n[=====>    ] 50%",
      "[=====>    ] 50% error: checksum mismatch",
    ],
  ])("projects %s", (_, text, projected) => {
    const { result, context } = run(text);
    const id = idOf(text);
    expect(result).toBe(
      projected.endsWith("\n") ? `${projected}<<cg:${id}>>` : `${projected}\n<<cg:${id}>>`,
    );
    expect(context.stashed.get(id)).toBe(text);
  });

  it.each([
    ["short non-adjacent repeats", "if x:\n    }\nelse:\n    }\nend"],
    ["a short repeated block", "a\nb\nc\na\nb"],
    ["plain lines", "one\ntwo\nthree"],
    ["a percent inside prose", "coverage went up to 45% this week"],
    ["a rate inside prose", "the link sustains 12 MB/s on average"],
    ["empty", ""],
  ])("leaves %s alone", (_, text) => {
    expect(run(text).result).toBeUndefined();
  });

  it.each<[MarkerMode, string]>([
    ["full", `a\n\nb\n<<cg:${idOf("a\n\n\nb")}>>`],
    ["summary", "a\n\nb\n\u27eacg\u27eb"],
    ["off", "a\n\nb"],
  ])("marks in %s mode", (mode, expected) => {
    const { result, context } = run("a\n\n\nb", mode);
    expect(result).toBe(expected);
    expect(context.stashed.size).toBe(mode === "full" ? 1 : 0);
  });

  it("respects min_tokens", () => {
    const small = "a\n\n\nb";
    expect(run(small, "full", defaults).result).toBeUndefined();
    const large = `${Array.from({ length: 200 }, (_, i) => `line ${i} of the build log`).join("\n")}\n\n\n`;
    expect(run(large, "full", defaults).result).toBe(`${large.slice(0, -2)}<<cg:${idOf(large)}>>`);
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

  it("keeps one copy of every error line and only drops lines", () => {
    for (const { out } of items) {
      const result = run(out, "off").result;
      if (result === undefined) continue;
      const kept = new Set(result.split("\n"));
      for (const line of out.split("\n")) if (errorWord.test(line)) expect(kept).toContain(line);
      const original = out.split("\n");
      let at = 0;
      for (const line of result.split("\n")) {
        while (at < original.length && original[at] !== line) at++;
        expect(at).toBeLessThan(original.length);
        at++;
      }
      expect(result.length).toBeLessThan(out.length);
    }
  });
});
