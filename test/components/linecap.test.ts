import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CUT,
  capLines,
  cutLine,
  HUGE_LINE_CHARS,
  hasUrl,
  isProtected,
  linecap,
} from "../../src/components/linecap.js";
import { componentsSchema, type MarkerMode } from "../../src/config/schema.js";
import { isFactClass } from "../../src/content/content-class.js";
import type { ToolOutput } from "../../src/wire/types.js";
import { fakeContext, idOf, toolOutputs } from "../support/component-context.js";

const defaults = componentsSchema.parse({}).linecap;
const small = { ...defaults, min_tokens: 0, max_line_chars: 31 };

function run(text: string, mode: MarkerMode = "full", options = small) {
  const outputs = toolOutputs([text]);
  const context = fakeContext(outputs, { mode });
  return { result: linecap.reduce(outputs[0]!, options, context) as string | undefined, context };
}

const deprecation = "Deprecated: use spawn instead";
const long = "abcdefghij".repeat(5);

/** The URL pattern linecap protects lines by, as a pattern (it tries 32 characters a position). */
const URL_PATTERN = /[a-z][a-z0-9+.-]{0,31}:\/\/\S/i;

describe("hasUrl", () => {
  it("finds what the URL pattern finds", () => {
    const pieces = [
      "://",
      ":",
      "/",
      "h",
      "T",
      "tps",
      "git+ssh",
      "a1",
      "9",
      "-",
      ".",
      "+",
      " ",
      "\u00a0",
      "\u2028",
      "ſ",
      "\u212a",
      "é",
      "_",
      "x".repeat(31),
      "y".repeat(33),
      "😀",
    ];
    const line = fc
      .array(fc.constantFrom(...pieces), { maxLength: 40 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(line, fc.string({ maxLength: 60 })), (text) => {
        expect(hasUrl(text)).toBe(URL_PATTERN.test(text));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ["https://example.com", true],
    ["see http://x", true],
    ["://x", false],
    ["1://x", false],
    ["a://", false],
    ["a:// x", false],
    [`a${"1".repeat(31)}://x`, true],
    [`a${"1".repeat(32)}://x`, false],
    ["ſ://x", false],
  ])("%s: %s", (text, expected) => {
    expect(hasUrl(text)).toBe(expected);
    expect(URL_PATTERN.test(text)).toBe(expected);
  });

  it("protects the lines the patterns it stands for protect", () => {
    // The rules as plain patterns: an error word, a URL, a stack frame, a file path.
    const rules = [
      /error|fail|exception|panic|fatal|traceback|warning/i,
      URL_PATTERN,
      /\bat\s+(?:\S+\s+)?\(?[^()\s]+:\d+(?::\d+)?\)?|\bFile "[^"]+", line \d+|(?<=\w\.[A-Za-z][A-Za-z0-9]{0,9}):\d+\b/,
      /[/\\][\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9}\b/,
      /(?:^|[\s"'`(=:,[])(?:~|\.{1,2})?(?:\/[\w.@+-]+){2,}|\b[A-Za-z]:\\\w/,
    ];
    const pieces = [
      "at ",
      "at(",
      "x.ts",
      ":12",
      ":3",
      "a.b",
      ".py",
      'File "',
      '", line 4',
      " ",
      "/",
      "src",
      "(",
      ")",
      "ab",
      "1",
      "://",
      "h",
      "Error",
      "é",
      "x".repeat(12),
    ];
    const line = fc
      .array(fc.constantFrom(...pieces), { maxLength: 30 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(line, fc.string({ maxLength: 60 })), (text) => {
        expect(isProtected(text)).toBe(rules.some((rule) => rule.test(text)));
      }),
      { numRuns: 3000 },
    );
  });

  it("cuts a megabyte-long line even when it holds an error word, a path or a URL by chance", () => {
    const blob = "QUJD".repeat(256 * 1024);
    expect(isProtected(blob)).toBe(false);
    expect(cutLine(blob, 2000).length).toBeLessThanOrEqual(2000);
    const noisy = `${blob}failX/usr/lib/a.so https://example.com/x${blob}`;
    expect(isProtected(noisy)).toBe(true);
    const cut = cutLine(noisy, 2000);
    expect(cut.length).toBeLessThanOrEqual(2000);
    expect(cut).toContain(CUT);
  });

  it("keeps a long protected line under the huge-line length whole", () => {
    const line = `${"x".repeat(HUGE_LINE_CHARS - 100)} Error: disk full`;
    expect(cutLine(line, 2000)).toBe(line);
  });
});

describe("linecap", () => {
  it.each([
    [
      "non-adjacent repeats",
      `${deprecation}\nstep 1\n${deprecation}\nstep 2\n${deprecation}`,
      `${deprecation}  (x3)\nstep 1\nstep 2`,
    ],
    [
      "adjacent repeats",
      "retrying connect\nretrying connect\nconnected",
      "retrying connect  (x2)\nconnected",
    ],
    ["a long line", `${long}\nshort`, "abcdefghij...[cut]...abcdefghij\nshort"],
    ["a long repeated line", `${long}\nok\n${long}`, "abcdefghij...[cut]...abcdefghij  (x2)\nok"],
    ["a trailing newline", `${long}\n`, "abcdefghij...[cut]...abcdefghij\n"],
  ])("caps %s", (_, text, capped) => {
    const { result, context } = run(text);
    const id = idOf(text);
    expect(result).toBe(
      capped.endsWith("\n") ? `${capped}<<cg:${id}>>` : `${capped}\n<<cg:${id}>>`,
    );
    expect(context.stashed.get(id)).toBe(text);
  });

  it.each([
    ["short repeats", "    }\n  }\n    }\n  }\nelse:\nelse:"],
    ["blank lines", "a\n\n\nb\n\n"],
    ["a path", `cat ./node_modules/${long}/index.js`],
    ["a windows path", `C:\\Users\\${long}`],
    ["an absolute directory", `/usr/local/${long}/bin`],
    ["a URL", `see https://example.com/${long}`],
    ["a JS stack frame", `    at handler (${long}.js:12:5)`],
    ["a Python stack frame", `  File "${long}", line 12`],
    ["an error word", `ValueError: ${long}`],
    ["a repeated error line", "DeprecationWarning: use spawn\nstep\nDeprecationWarning: use spawn"],
    ["a line exactly at the limit", "x".repeat(31)],
    ["empty", ""],
  ])("leaves %s alone", (_, text) => {
    expect(run(text).result).toBeUndefined();
  });

  it.each<[MarkerMode, string]>([
    ["full", `abcdefghij...[cut]...abcdefghij\n<<cg:${idOf(long)}>>`],
    ["summary", "abcdefghij...[cut]...abcdefghij\n\u27eacg\u27eb"],
    ["off", "abcdefghij...[cut]...abcdefghij"],
  ])("marks in %s mode", (mode, expected) => {
    const { result, context } = run(long, mode);
    expect(result).toBe(expected);
    expect(context.stashed.size).toBe(mode === "full" ? 1 : 0);
  });

  it("respects min_tokens and max_line_chars defaults", () => {
    const text = `${deprecation}\n${deprecation}`;
    expect(run(text, "full", defaults).result).toBeUndefined();
    const line = "q".repeat(2000);
    const result = run(line, "off", { ...defaults, min_tokens: 0 }).result;
    expect(result).toBe(`${"q".repeat(244)}${CUT}${"q".repeat(244)}`);
  });

  it.each([
    [
      "a surrogate pair at the head edge",
      `${"a".repeat(9)}😀${"b".repeat(40)}`,
      31,
      `${"a".repeat(9)}${CUT}${"b".repeat(10)}`,
    ],
    [
      "a surrogate pair at the tail edge",
      `${"a".repeat(40)}😀${"b".repeat(9)}`,
      31,
      `${"a".repeat(10)}${CUT}${"b".repeat(9)}`,
    ],
    ["a limit smaller than the cut mark", "z".repeat(20), 5, CUT],
    ["a limit where cutting does not save", "z".repeat(11), 10, "z".repeat(11)],
    ["a megabyte of dotted names", "a.b".repeat(350_000), 31, `a.ba.ba.ba${CUT}ba.ba.ba.b`],
    ["a megabyte of dashes", "a-1".repeat(350_000), 31, `a-1a-1a-1a${CUT}1a-1a-1a-1`],
  ])("cutLine with %s", (_, line, max, expected) => {
    expect(cutLine(line, max)).toBe(expected);
  });

  const ignored = "FAIL: bar.py was ignored because it is not in the test path";
  const twoRuns = [
    "$ ./check.sh src",
    ignored,
    "checked 12 files: 1 failure",
    "$ ./check.sh src",
    ignored,
    "checked 12 files: 1 failure",
  ].join("\n");
  const eachRunKept = [
    "$ ./check.sh src  (x2)",
    ignored,
    "checked 12 files: 1 failure",
    ignored,
    "checked 12 files: 1 failure",
  ].join("\n");
  it.each<[MarkerMode, string]>([
    ["full", `${eachRunKept}\n<<cg:${idOf(twoRuns)}>>`],
    ["off", eachRunKept],
  ])("keeps a repeated error line in each run it belongs to (%s mode)", (mode, expected) => {
    expect(run(twoRuns, mode, { ...small, max_line_chars: 500 }).result).toBe(expected);
  });

  it("never cuts the long lines of a diff", () => {
    const removed = `-${"const value = compute(argument);".repeat(3)}`;
    const hunk = `@@ -1,2 +1,2 @@ ${"function handler(request, response) ".repeat(2)}`;
    const diff = `--- a/src/x.js\n+++ b/src/x.js\n${hunk}\n${removed}\n+added\n${removed}`;
    const [output] = toolOutputs([{ text: diff, call: { input: { command: "git diff" } } }]);
    expect(output?.contentClass).toBe("diff");
    expect(linecap.reduce(output!, small, fakeContext([]))).toBeUndefined();
  });

  it.each([
    ["plain text", false, "lorem ipsum dolor sit amet"],
    ["base64", false, "QUJDRA/+ZWZn/aGlqa2xtbm9wcXJzdHV2d3h5eg=="],
    ["a relative file", true, "see src/app.ts for details"],
    ["a Go frame", true, "main.go:12 +0x1d"],
  ])("isProtected: %s", (_, expected, line) => {
    expect(isProtected(line)).toBe(expected);
  });
});

const corpus = resolve(import.meta.dirname, "../../../shared/corpus");
const searchOutput = resolve(corpus, "reference/search_output.json");
if (!existsSync(searchOutput))
  console.warn(`linecap corpus tests skipped: ${searchOutput} is absent`);

describe.skipIf(!existsSync(searchOutput))("linecap on real shell outputs", () => {
  const items = existsSync(searchOutput)
    ? (JSON.parse(readFileSync(searchOutput, "utf8")) as Array<{ cmd: string; out: string }>)
    : [];
  const errorWord = /error|fail|exception|panic|fatal|traceback|warning/i;

  it("keeps every error line whole and only shrinks", () => {
    for (const { out } of items) {
      const result = run(out, "off", defaults).result;
      if (result === undefined) continue;
      const kept = result.split("\n").map((line) => line.replace(/ {2}\(x\d+\)$/, ""));
      for (const line of out.split("\n")) if (errorWord.test(line)) expect(kept).toContain(line);
      expect(result.length).toBeLessThan(out.length);
    }
  });
});

describe("linecap's reading of what changes", () => {
  it("leaves a text alone exactly when capping its lines changes none", () => {
    // Lines of few shapes: repeats long enough to fold, short ones, error lines, long lines
    // with and without a path.
    const line = fc.constantFrom(
      "the same line of forty characters, again",
      "another line that repeats itself often",
      "ok",
      "",
      "  ",
      "error: the same failing line, each time",
      "x".repeat(40),
      `see /usr/lib/${"y".repeat(40)}.so`,
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = lines.join("\n");
        const capped = capLines(text.split("\n"), small.max_line_chars).join("\n");
        // Equal lines may read as a table, a fact linecap never caps.
        const fact = isFactClass((toolOutputs([text])[0] as ToolOutput).contentClass);
        expect(run(text, "off").result).toBe(fact || capped === text ? undefined : capped);
      }),
    );
  });

  it("cuts an output of one line as it cuts that line among others", () => {
    // Long lines with and without what protects them, under and over the huge-line length.
    const line = fc.tuple(
      fc.constantFrom("x", "QUJD/+9=", "see /usr/lib/libz.so ", "error: ", "https://a.example/"),
      fc.constantFrom(1, 3, 40, HUGE_LINE_CHARS / 4),
    );
    fc.assert(
      fc.property(line, ([unit, times]) => {
        const text = unit.repeat(times);
        const capped = capLines([text], small.max_line_chars)[0];
        expect(run(text, "off").result).toBe(capped === text ? undefined : capped);
        expect(run(`x\n${text}`, "off").result).toBe(capped === text ? undefined : `x\n${capped}`);
      }),
      { numRuns: 40 },
    );
  });
});
