import { describe, expect, it } from "vitest";
import { supersedes, type Target, targetOf } from "../../src/content/target.js";
import type { ToolCall } from "../../src/wire/types.js";

/** A target without its key (the key is the call's own spelling). */
type Unkeyed<T> = T extends unknown ? Omit<T, "key"> : never;
const call = (name: string, input: unknown): ToolCall => ({ id: "c", name, input });
const bash = (command: string) => call("Bash", { command });
const QUERY = "/testbed/django/db/models/sql/query.py";
const PATCH =
  "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: src/b.ts\n+z\n*** End Patch";

describe("targetOf: what an output is about, from its call", () => {
  it.each<[string, ToolCall, Unkeyed<Target>]>([
    [
      "a Read of some lines",
      call("Read", { file_path: QUERY, offset: 557, limit: 220 }),
      { kind: "read", paths: [QUERY], lines: { first: 557, last: 776 } },
    ],
    [
      "a Read of the whole file",
      call("Read", { file_path: QUERY }),
      { kind: "read", paths: [QUERY], lines: { first: 1, last: Infinity } },
    ],
    [
      "a Read from the end, which cannot be placed",
      call("Read", { file_path: "/tmp/task.output", offset: -80 }),
      { kind: "read", paths: ["/tmp/task.output"], lines: undefined },
    ],
    [
      "an editor's view",
      call("str_replace_editor", { command: "view", path: "/repo/a.py", view_range: [10, -1] }),
      { kind: "read", paths: ["/repo/a.py"], lines: { first: 10, last: Infinity } },
    ],
    [
      "an Edit",
      call("Edit", { file_path: QUERY, old_string: "a", new_string: "b" }),
      { kind: "edit", paths: [QUERY] },
    ],
    [
      "an edit sent through a tool named Read",
      call("Read", { file_path: QUERY, old_string: "a", new_string: "b" }),
      { kind: "edit", paths: [QUERY] },
    ],
    [
      "a MultiEdit",
      call("MultiEdit", { file_path: "/repo/a.py", edits: [] }),
      { kind: "edit", paths: ["/repo/a.py"] },
    ],
    [
      "a Write",
      call("Write", { file_path: "/repo/new.py", content: "x = 1\n" }),
      { kind: "edit", paths: ["/repo/new.py"] },
    ],
    [
      "an editor's str_replace",
      call("str_replace_editor", { command: "str_replace", path: "/repo/a.py", old_str: "a" }),
      { kind: "edit", paths: ["/repo/a.py"] },
    ],
    [
      "a Codex apply_patch (custom tool, the patch as its input)",
      call("apply_patch", PATCH),
      { kind: "edit", paths: ["src/a.ts", "src/b.ts"] },
    ],
    [
      "a patch in a command line",
      call("exec_command", { cmd: `apply_patch <<'EOF'\n${PATCH}\nEOF` }),
      { kind: "edit", paths: ["src/a.ts", "src/b.ts"] },
    ],
    ["sed -i", bash("sed -i 's/a/b/' src/x.py"), { kind: "edit", paths: ["src/x.py"] }],
    [
      "cat",
      bash("cd /testbed && cat setup.py"),
      { kind: "read", paths: ["setup.py"], lines: { first: 1, last: Infinity } },
    ],
    [
      "sed -n",
      bash("sed -n '120,180p' src/app.ts"),
      { kind: "read", paths: ["src/app.ts"], lines: { first: 120, last: 180 } },
    ],
    [
      "nl piped into sed -n (Codex)",
      call("exec_command", { cmd: "nl -ba src/app.ts | sed -n '120,180p'" }),
      { kind: "read", paths: ["src/app.ts"], lines: { first: 120, last: 180 } },
    ],
    [
      "a shell argv (Codex's shell tool)",
      call("shell", { command: ["bash", "-lc", "sed -n '1,200p' src/app.ts"] }),
      { kind: "read", paths: ["src/app.ts"], lines: { first: 1, last: 200 } },
    ],
    [
      "head",
      bash("head -n 50 README.md"),
      { kind: "read", paths: ["README.md"], lines: { first: 1, last: 50 } },
    ],
    [
      "head without a count",
      bash("head README.md"),
      { kind: "read", paths: ["README.md"], lines: { first: 1, last: 10 } },
    ],
    [
      "cat trimmed by head",
      bash("cat -n src/a.py | head -20"),
      { kind: "read", paths: ["src/a.py"], lines: { first: 1, last: 20 } },
    ],
    [
      "tail from a line",
      bash("tail -n +40 a.py"),
      { kind: "read", paths: ["a.py"], lines: { first: 40, last: Infinity } },
    ],
    [
      "tail, which cannot be placed",
      bash("tail -n 20 build.log"),
      { kind: "read", paths: ["build.log"], lines: undefined },
    ],
    [
      "a grep over a directory",
      bash('grep -rn "alias_map" /testbed/django/ 2>/dev/null'),
      { kind: "run", paths: ["/testbed/django/"], searches: true },
    ],
    [
      "a file piped into grep",
      bash("cat src/a.py | grep -n foo"),
      { kind: "run", paths: ["src/a.py"], searches: true },
    ],
    ["a listing", bash("ls -la /testbed"), { kind: "run", paths: ["/testbed"], searches: false }],
    [
      "a test run",
      bash("python -m pytest tests/test_a.py::test_x -q"),
      { kind: "run", paths: ["tests/test_a.py"], searches: false },
    ],
    [
      "a script run",
      bash("python /tmp/bugtest/run_test.py"),
      { kind: "run", paths: ["run_test.py"], searches: false },
    ],
    [
      "a Grep tool",
      call("Grep", { pattern: "foo", path: "/testbed/src", glob: "*.py" }),
      { kind: "run", paths: ["/testbed/src"], searches: true },
    ],
    [
      "an API call",
      call("fetch_issue", { number: 12 }),
      { kind: "run", paths: [], searches: false },
    ],
  ])("%s", (_label, made, expected) => {
    const { key: _key, ...target } = targetOf(made) as Target;
    expect(target).toEqual(expected);
  });

  it("has no target without a call", () => {
    expect(targetOf(undefined)).toBeUndefined();
  });
});

describe("supersedes: a later output that shows all an earlier one showed", () => {
  const read = (input: Record<string, unknown>) => targetOf(call("Read", input)) as Target;
  const run = (command: string) => targetOf(bash(command)) as Target;
  it.each<[string, Target, Target, boolean]>([
    [
      "the same read again",
      read({ file_path: QUERY, offset: 557, limit: 220 }),
      read({ file_path: QUERY, offset: 557, limit: 220 }),
      true,
    ],
    [
      "a read of the whole file over a read of some lines",
      read({ file_path: QUERY }),
      read({ file_path: QUERY, offset: 557, limit: 220 }),
      true,
    ],
    [
      "a longer read over lines it covers, the path written another way",
      run("sed -n '500,800p' django/db/models/sql/query.py"),
      read({ file_path: QUERY, offset: 557, limit: 220 }),
      true,
    ],
    [
      "a read of a few of the lines does not supersede the longer read",
      read({ file_path: QUERY, offset: 557, limit: 15 }),
      read({ file_path: QUERY, offset: 557, limit: 220 }),
      false,
    ],
    [
      "a read of other lines",
      read({ file_path: QUERY, offset: 843, limit: 90 }),
      read({ file_path: QUERY, offset: 557, limit: 220 }),
      false,
    ],
    [
      "a read of another file",
      read({ file_path: "/testbed/django/db/models/query.py" }),
      read({ file_path: QUERY, offset: 557, limit: 220 }),
      false,
    ],
    [
      "a whole read over a part that cannot be placed",
      read({ file_path: "/tmp/task.output" }),
      read({ file_path: "/tmp/task.output", offset: -80 }),
      true,
    ],
    ["the same tail again", run("tail -n 20 build.log"), run("tail -n 20 build.log"), true],
    ["the same command again", run("git  status"), run("git status"), true],
    [
      "the same test target, output flags aside",
      run("python -m pytest tests/test_a.py -q"),
      run("pytest tests/test_a.py"),
      true,
    ],
    [
      "a narrower test run does not supersede a broader one",
      run("pytest tests/test_a.py::test_x"),
      run("pytest tests/test_a.py"),
      false,
    ],
    [
      "an edit never supersedes, nor is superseded",
      targetOf(call("Edit", { file_path: QUERY, old_string: "a", new_string: "b" })) as Target,
      targetOf(call("Edit", { file_path: QUERY, old_string: "a", new_string: "b" })) as Target,
      false,
    ],
  ])("%s: %s", (_label, later, earlier, expected) => {
    expect(supersedes(later, earlier)).toBe(expected);
  });
});
