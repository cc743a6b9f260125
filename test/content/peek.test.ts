import { describe, expect, it } from "vitest";
import { PEEK_CHARS, peekOf } from "../../src/content/peek.js";
import type { ToolCall } from "../../src/wire/types.js";
import { toolOutputs } from "../support/component-context.js";

const peek = (text: string, call?: Partial<ToolCall>) =>
  peekOf(toolOutputs([call ? { text, call } : { text }])[0]!);
const query = "/testbed/django/db/models/sql/query.py";

describe("peekOf", () => {
  it.each<[string, string, Partial<ToolCall> | undefined, string]>([
    [
      "a Read with offset and limit",
      "557\t    def combine(self, rhs, connector):",
      { name: "Read", input: { file_path: query, offset: 557, limit: 220 } },
      `Read ${query} lines 557-776`,
    ],
    [
      "a Read of a whole file",
      "1\timport os",
      { name: "Read", input: { file_path: "/a.py" } },
      "Read /a.py",
    ],
    [
      "a view_range to the end",
      "x",
      {
        name: "str_replace_editor",
        input: { command: "view", path: "/a.py", view_range: [40, -1] },
      },
      "str_replace_editor /a.py from line 40",
    ],
    [
      "a read_file with start and end lines",
      "x",
      { name: "read_file", input: { path: "src/app.ts", start_line: 3, end_line: 9 } },
      "read_file src/app.ts lines 3-9",
    ],
    [
      "a shell command, whitespace folded",
      "...",
      { input: { command: "cd /testbed &&\n  grep -rn\talias_map django" } },
      "$ cd /testbed && grep -rn alias_map django",
    ],
    ["an argv command", "ok", { name: "shell", input: { cmd: ["git", "status"] } }, "$ git status"],
    [
      "another tool: its first non-blank line",
      "\n\n  HTTP 200 OK\nbody",
      { name: "fetch", input: { url: "https://example.com" } },
      "HTTP 200 OK",
    ],
    ["no call", "\nfirst line\nsecond", undefined, "first line"],
    ["an empty output", "", undefined, ""],
    [
      "marker syntax in the first line",
      "see <<cg:0123456789abcdef>> and \u27eacg\u27eb",
      undefined,
      "see << cg:0123456789abcdef>> and \u27ea cg\u27eb",
    ],
  ])("describes %s", (_, text, call, expected) => {
    expect(peek(text, call)).toBe(expected);
  });

  it("cuts a long description to PEEK_CHARS with an ellipsis", () => {
    const command = `python -c "${"x".repeat(200)}"`;
    const described = peek("", { input: { command } });
    const head = `$ ${command}`.slice(0, PEEK_CHARS - 1);
    expect(described).toBe(`${head}\u2026`);
    expect(described).toHaveLength(PEEK_CHARS);
  });

  it("never splits a surrogate pair", () => {
    const described = peek(`${"a".repeat(PEEK_CHARS - 2)}😀${"b".repeat(10)}`);
    expect(described).toBe(`${"a".repeat(PEEK_CHARS - 2)}\u2026`);
  });

  it("reads only the start of a huge first line", () => {
    const started = performance.now();
    expect(peek("y".repeat(5_000_000))).toHaveLength(PEEK_CHARS);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
