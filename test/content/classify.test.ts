import { describe, expect, it } from "vitest";
import { type CallClass, classOfCall } from "../../src/content/class-by-call.js";
import { ContentClasses, classifyOutput } from "../../src/content/classify.js";
import { isFactClass } from "../../src/content/content-class.js";
import { SizedMemo } from "../../src/pipeline/sized-memo.js";
import type { ToolCall } from "../../src/wire/types.js";

const bash = (command: string): ToolCall => ({ id: "c", name: "Bash", input: { command } });
const tool = (name: string, input: unknown = {}): ToolCall => ({ id: "c", name, input });

const code = Array.from({ length: 12 }, (_, i) => `    value_${i} = compute(${i})`).join("\n");
const unifiedDiff = [
  "diff --git a/src/app.py b/src/app.py",
  "index 3b18e51..a9c4f2d 100644",
  "--- a/src/app.py",
  "+++ b/src/app.py",
  "@@ -1,4 +1,3 @@",
  " import os",
  "-",
  " def main():",
  "-    pass",
  "+    run()",
].join("\n");
const plainDiff = "--- old.txt\n+++ new.txt\n@@ -1 +1 @@\n-a\n+b";
const grepLines = [
  "src/a.py:12:value = 1",
  "src/a.py:13-context line",
  "--",
  "src/b.py:4:value = 2",
].join("\n");
const paths = "./src/a.ts\n./src/b.ts\n./test/a.test.ts";
const numbered = "     1→import os\n     2→import sys\n     3→\n     4→print(os.getcwd())";
const catN = "1\timport os\n2\timport sys\n3\t\n4\tprint(os.getcwd())";
const json = '{"items": [1, 2, 3], "ok": true}';
const log = "2024-01-01 10:00:00 INFO start\n2024-01-01 10:00:01 INFO ready\nlistening";
const prose = "The build finished.\nNothing else to report.";

describe("classifyOutput", () => {
  it.each<[string, string, ToolCall | undefined, string]>([
    ["a Read tool", code, tool("Read", { file_path: "/a.py" }), "file"],
    ["a read_file tool", code, tool("read_file", { path: "/a.py" }), "file"],
    ["str_replace_editor view", code, tool("str_replace_editor", { command: "view" }), "file"],
    ["a Grep tool", code, tool("Grep", { pattern: "x" }), "search"],
    ["a Glob tool", paths, tool("Glob", { pattern: "**/*.ts" }), "search"],
    ["cat", code, bash("cat src/app.py"), "file"],
    ["cat | head", code, bash("cat src/app.py | head -40"), "file"],
    ["sed -n", code, bash("sed -n '1,80p' src/app.py"), "file"],
    ["tail of a file", code, bash("cd /repo && tail -n 50 build.log"), "file"],
    ["cat | grep", code, bash("cat app.log | grep ERROR"), "search"],
    ["a command piped into grep", code, bash("pytest -q 2>&1 | grep FAIL"), "search"],
    ["grep", code, bash("grep -rn value src"), "search"],
    ["grep | head", code, bash("grep -n value a.py | head -40"), "search"],
    ["rg", code, bash("rg value"), "search"],
    ["git grep", code, bash("git grep -n value"), "search"],
    ["find", code, bash("find . -name '*.py'"), "search"],
    ["ls", code, bash("ls -la src"), "search"],
    ["git diff", code, bash("git diff --cached"), "diff"],
    ["git show", code, bash("git -C repo show HEAD"), "diff"],
    ["git log -p", code, bash("git log -p -3"), "diff"],
    ["diff -u", code, bash("diff -u a.txt b.txt"), "diff"],
    ["a fact beside another command", code, bash("which python3; ls /opt; pip list"), "search"],
    ["a command in bash -c", code, bash("bash -c 'cd /x && git diff'"), "diff"],
    ["a build", code, bash("npm run build"), "log"],
    ["a test run", code, bash("python -m pytest tests -q"), "log"],
    ["git log without patches", code, bash("git log --oneline"), "log"],
    ["a script printing a diff", unifiedDiff, bash("./make-patch.sh"), "diff"],
    ["a unified diff, no call", unifiedDiff, undefined, "diff"],
    [
      "a coloured diff from a script",
      unifiedDiff.replace(/^([-+@])/gm, "\u001b[32m$1").replace(/$/gm, "\u001b[m"),
      bash("./make-patch.sh"),
      "diff",
    ],
    ["a plain unified diff, no call", plainDiff, undefined, "diff"],
    ["grep matches, no call", grepLines, undefined, "search"],
    ["paths, no call", paths, undefined, "search"],
    ["a Read-style numbered listing, no call", numbered, undefined, "file"],
    ["a cat -n listing, no call", catN, undefined, "file"],
    ["JSON from an API tool", json, tool("fetch_items"), "json"],
    ["JSON from a command", json, bash("curl -s localhost/items"), "json"],
    ["a log, no call", log, undefined, "log"],
    ["prose from an unknown tool", prose, tool("summarize"), "text"],
    ["prose from a command", prose, bash("./report.sh"), "log"],
    ["nothing", "", undefined, "text"],
  ])("%s", (_, text, call, expected) => {
    expect(classifyOutput(text, call)).toBe(expected);
  });

  it("classes one text answered by tens of thousands of calls, each by its own call", () => {
    // Each call once copied the text's classes so far into a new map: 40,000 took minutes.
    const classes = new ContentClasses(16 * 1024 * 1024);
    const calls = Array.from({ length: 40_000 }, (_, i) =>
      [bash(`cat f${i}.py`), bash(`./run.sh ${i}`), bash(`git diff HEAD~${i}`), tool(`t${i}`)].at(
        i % 4,
      ),
    );
    const counts = new Map<string, number>();
    for (const call of calls) {
      const found = classes.of("ok\n", call);
      counts.set(found, (counts.get(found) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({
      file: 10_000,
      log: 10_000,
      diff: 10_000,
      text: 10_000,
    });
  });

  it("remembers a text's shape, never a class from an earlier call", () => {
    const classes = new ContentClasses(1024);
    expect(classes.of(code, bash("cat a.py"))).toBe("file");
    expect(classes.of(code, bash("./run.sh"))).toBe("log");
    expect(classes.of(code, bash("cat a.py"))).toBe("file");
    expect(classes.of(code, undefined)).toBe(classifyOutput(code, undefined));
  });

  it("reads a command line's class from the memo for every later call that runs it", () => {
    const commands = new SizedMemo<CallClass>(1024, (line) => line.length);
    expect(classOfCall(bash("cat a.py | head"), commands)).toBe("file");
    expect(commands.get("cat a.py | head")).toBe("file");
    // A later request parses its calls anew: the line is not split into pipelines again.
    commands.set("./run.sh --fast", "search");
    expect(classOfCall(bash("./run.sh --fast"), commands)).toBe("search");
    expect(classOfCall(bash("./run.sh --fast"))).toBe("shell");
    // A tool's own name decides before any command line is read.
    expect(classOfCall(tool("Read", { command: "./run.sh --fast" }), commands)).toBe("file");
  });

  it("classes a text larger than its budget without keeping it", () => {
    const classes = new ContentClasses(8);
    expect(classes.of(code, bash("cat a.py"))).toBe("file");
    expect(classes.of(code, bash("./run.sh"))).toBe("log");
  });

  it("reads only the start of a huge output, in linear time", () => {
    const huge = `${"x".repeat(2_000_000)}:1:${"y/".repeat(500_000)}`;
    const started = performance.now();
    expect(classifyOutput(huge, undefined)).toBe("text");
    expect(performance.now() - started).toBeLessThan(500);
  });

  it.each([
    ["file", true],
    ["diff", true],
    ["search", true],
    ["json", true],
    ["yaml", true],
    ["table", true],
    ["log", false],
    ["text", false],
  ] as const)("isFactClass(%s) is %s", (contentClass, expected) => {
    expect(isFactClass(contentClass)).toBe(expected);
  });
});
