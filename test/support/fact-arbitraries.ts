import fc from "fast-check";
import type { ContentClass } from "../../src/content/content-class.js";

/**
 * fast-check arbitraries for agent transcripts made of the outputs the fidelity rules are about:
 * unified diffs, search results, file reads and logs, each with the call that produced it. The
 * lines are chosen to tempt every line-level reducer: deleted blank lines (a lone `-`), spinner
 * look-alikes (`|`, `-`), repeated long lines and blocks, error words, over-long lines, progress
 * bars, repeated paths; outputs repeat so dedup and mask have work.
 */
export interface FactOutput {
  /** What the output is, as its producer knows it. */
  readonly kind: Extract<ContentClass, "diff" | "search" | "file" | "log">;
  readonly text: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

const CODE = [
  "import os",
  "",
  "def main():",
  "        return self._cache[key]  # hot path lookup in the resolver",
  "        return self._cache[key]  # hot path lookup in the resolver",
  "    }",
  "|",
  "-",
  "        raise ValueError('bad input: the request has no alias')",
  "# [=====>    ] 45% of the migration is done",
  `    x = '${"a".repeat(620)}'`,
  "FAIL: bar.py was ignored because it is not in the test path",
  "    value = compute_the_value(argument, retries=3)",
];
const PATHS = [
  "django/db/models/sql/query.py",
  "django/db/models/sql/compiler.py",
  "tests/queries/test_qs_combinators.py",
  "src/app.ts",
];

const code = fc.constantFrom(...CODE);
const block = fc
  .tuple(fc.array(code, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3 }))
  .map(([lines, times]) => Array.from({ length: times }, () => lines).flat());
const codeLines = (max: number) =>
  fc.array(block, { minLength: 1, maxLength: max }).map((blocks) => blocks.flat());

const hunk = fc
  .tuple(
    codeLines(4),
    fc.array(fc.constantFrom(" ", " ", "-", "+"), { minLength: 40, maxLength: 40 }),
    fc.nat(400),
  )
  .map(([lines, signs, start]) => [
    `@@ -${start + 1},${lines.length} +${start + 1},${lines.length} @@ def main():`,
    ...lines.map((line, index) => `${signs[index % signs.length]}${line}`),
  ]);
const fileDiff = fc
  .tuple(fc.constantFrom(...PATHS), fc.boolean(), fc.array(hunk, { minLength: 1, maxLength: 3 }))
  .map(([path, created, hunks]) => [
    `diff --git a/${path} b/${path}`,
    ...(created
      ? ["new file mode 100644", "index 0000000..5d1c2b9"]
      : ["index 3b18e51..a9c4f2d 100644"]),
    created ? "--- /dev/null" : `--- a/${path}`,
    `+++ b/${path}`,
    ...hunks.flat(),
  ]);
const diff: fc.Arbitrary<FactOutput> = fc
  .tuple(
    fc.array(fileDiff, { minLength: 1, maxLength: 3 }),
    fc.constantFrom("git diff", "git diff --cached", "git show HEAD", "./show-changes.sh"),
    fc.boolean(),
  )
  .map(([files, command, finalNewline]) => ({
    kind: "diff",
    text: files.flat().join("\n") + (finalNewline ? "\n" : ""),
    name: "Bash",
    input: { command },
  }));

const match = fc
  .tuple(fc.constantFrom(...PATHS), fc.nat(900), code, fc.constantFrom(":", ":", "-"))
  .map(([path, line, text, separator]) => `${path}${separator}${line + 1}${separator}${text}`);
const searchLine = fc.oneof(
  { arbitrary: match, weight: 12 },
  { arbitrary: fc.constant("--"), weight: 2 },
  { arbitrary: fc.constantFrom(...PATHS).map((path) => `./${path}`), weight: 3 },
  { arbitrary: fc.constant("grep: django/secret.py: Permission denied"), weight: 1 },
);
const search: fc.Arbitrary<FactOutput> = fc
  .tuple(
    fc.oneof(
      fc.array(searchLine, { minLength: 1, maxLength: 60 }),
      fc.array(match, { minLength: 190, maxLength: 260 }),
    ),
    fc.constantFrom(
      ["Bash", { command: "grep -rn alias_map django tests" }],
      ["Bash", { command: "rg -n -C1 alias_map" }],
      ["Bash", { command: "grep -n alias_map query.py | head -40" }],
      ["Bash", { command: "find . -name '*.py'" }],
      ["Grep", { pattern: "alias_map", path: "django" }],
    ) as fc.Arbitrary<[string, Record<string, unknown>]>,
  )
  .map(([lines, [name, input]]) => ({ kind: "search", text: lines.join("\n"), name, input }));

const file: fc.Arbitrary<FactOutput> = fc
  .tuple(codeLines(30), fc.nat(500), fc.boolean(), fc.constantFrom(...PATHS))
  .chain(([lines, offset, numbered, path]) =>
    fc
      .constantFrom<[string, Record<string, unknown>]>(
        ["Read", { file_path: `/testbed/${path}`, offset: offset + 1, limit: lines.length }],
        ["Bash", { command: `cat ${path}` }],
        ["Bash", { command: `sed -n '${offset + 1},${offset + lines.length}p' ${path}` }],
        ["str_replace_editor", { command: "view", path: `/testbed/${path}` }],
      )
      .map(([name, input]) => ({
        kind: "file" as const,
        text: lines
          .map((line, index) =>
            numbered ? `${String(offset + index + 1).padStart(6)}→${line}` : line,
          )
          .join("\n"),
        name,
        input,
      })),
  );

const LOG = [
  "collected 42 items",
  "tests/test_query.py::test_alias PASSED                                   [ 10%]",
  "tests/test_query.py::test_combine FAILED                                 [ 20%]",
  "E   AssertionError: assert 3 == 4",
  "Requirement already satisfied: requests in /usr/lib/python3/dist-packages (2.31.0)",
  "Setting up libjq1:amd64 (1.6-2.1) ...",
  "   ━━━━━━━━━━━━━━━━━━━━ 1.2/1.2 MB 3.4 MB/s eta 0:00:00",
  "[=====>    ] 45%",
  "|",
  "",
  "connection reset by peer, retrying in 1s",
  "=== 1 failed, 41 passed in 2.31s ===",
];
const log: fc.Arbitrary<FactOutput> = fc
  .tuple(
    fc.array(
      fc
        .tuple(fc.constantFrom(...LOG), fc.integer({ min: 1, max: 6 }))
        .map(([line, times]) => Array<string>(times).fill(line)),
      { minLength: 1, maxLength: 40 },
    ),
    fc.constantFrom(
      "python -m pytest -q tests",
      "pip install -r requirements.txt",
      "apt-get install -y jq",
      "./run.sh",
    ),
  )
  .map(([runs, command]) => ({
    kind: "log",
    text: runs.flat().join("\n"),
    name: "Bash",
    input: { command },
  }));

export const factOutput: fc.Arbitrary<FactOutput> = fc.oneof(diff, search, file, log);

/** A transcript's outputs: some repeat an earlier one exactly (a re-read, a re-run). */
export const factOutputs: fc.Arbitrary<FactOutput[]> = fc
  .tuple(fc.array(factOutput, { minLength: 1, maxLength: 7 }), fc.array(fc.nat(), { maxLength: 3 }))
  .map(([outputs, repeats]) => {
    const all = [...outputs];
    for (const pick of repeats) all.push(all[pick % all.length] as FactOutput);
    return all;
  });

export type Provider = "openai" | "anthropic";

/** The request body of a transcript, with every output paired with its call. */
export function transcriptOf(
  provider: Provider,
  outputs: ReadonlyArray<Pick<FactOutput, "text" | "name" | "input">>,
): string {
  if (provider === "openai") {
    const messages: unknown[] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Fix the failing query." },
    ];
    outputs.forEach(({ text, name, input }, index) => {
      const id = `call_${index}`;
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [
          { id, type: "function", function: { name, arguments: JSON.stringify(input) } },
        ],
      });
      messages.push({ role: "tool", tool_call_id: id, content: text });
    });
    const tools = ["Read", "Bash"].map((name) => ({
      type: "function",
      function: { name, parameters: { type: "object" } },
    }));
    // The agent declares its tools, so full markers are ones the model could expand (§8.1).
    return JSON.stringify({ model: "gpt-4o", messages, tools });
  }
  const messages: unknown[] = [{ role: "user", content: "Fix the failing query." }];
  outputs.forEach(({ text, name, input }, index) => {
    const id = `toolu_${index}`;
    messages.push({ role: "assistant", content: [{ type: "tool_use", id, name, input }] });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: text }],
    });
  });
  return JSON.stringify({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: "Be brief.",
    messages,
    tools: ["Read", "Bash"].map((name) => ({ name, input_schema: { type: "object" } })),
  });
}

/** The tool output texts of a body `transcriptOf` made (or the compactor returned), in order. */
export function outputTexts(provider: Provider, body: string): string[] {
  const { messages } = JSON.parse(body) as { messages: Array<Record<string, unknown>> };
  if (provider === "openai") {
    return messages
      .filter((message) => message.role === "tool")
      .map((message) => message.content as string);
  }
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<Record<string, unknown>>)
          .filter((block) => block.type === "tool_result")
          .map((block) => block.content as string)
      : [],
  );
}
