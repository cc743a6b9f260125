import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldSearch, searchfold, unfoldSearch } from "../../src/components/searchfold.js";
import { componentsSchema } from "../../src/config/schema.js";
import type { ToolCall } from "../../src/wire/types.js";
import { CLEAN, postCompact, testApp } from "../support/app.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

const defaults = componentsSchema.parse({}).searchfold;
const noMinimum = { ...defaults, min_tokens: 0 };
const lines = (...items: string[]) => items.join("\n");
const grep: Partial<ToolCall> = { input: { command: "grep -rn -A1 compute src" } };

function run(text: string, call: Partial<ToolCall> | undefined = grep, options = noMinimum) {
  const outputs = toolOutputs([call ? { text, call } : { text }]);
  return searchfold.reduce(outputs[0]!, options, fakeContext(outputs));
}

const path = "django/db/models/sql/compiler.py";
const matches = lines(
  `${path}:285:    def find_ordering_name(self, name, opts, alias=None):`,
  `${path}-286-        """`,
  "--",
  `${path}:301:            return self.find_ordering_name(item, opts, alias)`,
  `${path}:330:        field, targets, alias, joins, path, opts = self._setup_joins(pieces)`,
  "--",
  "django/db/models/query.py:12:from django.db.models.sql.compiler import find_ordering_name",
  "grep: django/secret.py: Permission denied",
);

describe("searchfold", () => {
  it.each<[string, string, string]>([
    [
      "matches, context lines and separators of one file",
      matches,
      lines(
        `${path}:`,
        "  285:    def find_ordering_name(self, name, opts, alias=None):",
        '  286-        """',
        "  --",
        "  301:            return self.find_ordering_name(item, opts, alias)",
        "  330:        field, targets, alias, joins, path, opts = self._setup_joins(pieces)",
        "--",
        "django/db/models/query.py:12:from django.db.models.sql.compiler import find_ordering_name",
        "grep: django/secret.py: Permission denied",
      ),
    ],
    [
      "the entries of a directory listing",
      lines(
        "./src/components/cmdfilter/command.ts",
        "./src/components/cmdfilter/filter.ts",
        "./src/components/cmdfilter/install.ts",
        "./src/app.ts",
        "",
      ),
      lines(
        "./src/components/cmdfilter/",
        "  command.ts",
        "  filter.ts",
        "  install.ts",
        "./src/app.ts",
        "",
      ),
    ],
  ])("folds %s", (_, text, folded) => {
    expect(run(text)).toBe(folded);
    expect(unfoldSearch(folded)).toBe(text);
  });

  it.each<[string, string, Partial<ToolCall> | undefined]>([
    ["one match per file", lines("src/a.py:1:x = 1", "src/b.py:2:y = 2", "src/c.py:3:z = 3"), grep],
    [
      "a file read that looks like matches",
      lines(...Array.from({ length: 5 }, (_, i) => `${path}:${i + 1}:line`)),
      { name: "Read", input: { file_path: "/notes.txt" } },
    ],
    [
      "a passthrough line that would read as a folded one",
      lines(`${path}:1:a`, `${path}:2:b`, "  3:not a match"),
      grep,
    ],
    ["short paths that do not save tokens", lines("a:1:x", "a:2:y"), grep],
  ])("leaves %s alone", (_, text, call) => {
    expect(run(text, call)).toBeUndefined();
  });

  it("respects min_tokens", () => {
    const small = lines(`${path}:1:import os`, `${path}:2:import sys`);
    expect(run(small, grep, noMinimum)).toBe(lines(`${path}:`, "  1:import os", "  2:import sys"));
    expect(run(small, grep, defaults)).toBeUndefined();
  });

  const segment = fc.constantFrom("src", "lib", "django", "db", "models", "a-b", "x.y", "ü");
  const filePath = fc
    .array(segment, { minLength: 1, maxLength: 4 })
    .chain((parts) =>
      fc.constantFrom(".py", ".ts", "", "-1", ":2").map((end) => `${parts.join("/")}${end}`),
    );
  const textPart = fc.string({ unit: fc.constantFrom("a", " ", ":", "-", "1", "/", "\t", "--") });
  const line = fc.oneof(
    fc.tuple(filePath, fc.nat(999), textPart).map(([p, n, t]) => `${p}:${n}:${t}`),
    fc.tuple(filePath, fc.nat(999), textPart).map(([p, n, t]) => `${p}-${n}-${t}`),
    fc.tuple(filePath, fc.constantFrom("", "/")).map(([p, end]) => `./${p}${end}`),
    fc.constantFrom("--", "", "  12:indented", "  name", "src:", "src/", "grep: x: denied"),
    textPart,
  );
  const output = fc
    .array(fc.tuple(line, fc.integer({ min: 1, max: 4 })), { maxLength: 40 })
    .map((runs) => runs.flatMap(([item, times]) => Array<string>(times).fill(item)).join("\n"));

  it("round-trips every fold it makes, byte for byte", () => {
    fc.assert(
      fc.property(output, (text) => {
        const folded = foldSearch(text);
        if (folded !== undefined) expect(unfoldSearch(folded)).toBe(text);
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });

  it("folds real-shaped grep output (the property is not vacuous)", () => {
    const folded = fc.sample(output, { numRuns: 500, seed: 1 }).filter((text) => foldSearch(text));
    expect(folded.length).toBeGreaterThan(50);
  });
});

describe("searchfold through POST /compact (agent preset)", () => {
  const results = Array.from(
    { length: 40 },
    (_, i) => `${path}:${i * 11 + 3}:        alias = self.query.alias_map[${i}]`,
  ).join("\n");
  const body = JSON.stringify({
    model: "gpt-4o-mini",
    messages: [
      { role: "user", content: "Where is alias_map read?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: {
              name: "Bash",
              arguments: JSON.stringify({ command: "grep -rn alias_map django" }),
            },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: results },
    ],
  });
  const toolText = (text: string) =>
    (JSON.parse(text) as { messages: Array<{ content: unknown }> }).messages[2]?.content;

  it.each([
    ["reversible", {}],
    ["clean", CLEAN],
  ] as const)(
    "folds the matches in %s mode, and /rehydrate restores them",
    async (mode, config) => {
      const { app } = testApp(config);
      const response = await postCompact(app, body, {
        headers: { "x-context-guru-cache": "cold" },
      });
      const compacted = await response.text();
      expect(toolText(compacted)).toBe(foldSearch(results));
      expect(unfoldSearch(toolText(compacted) as string)).toBe(results);
      if (mode === "clean") return;
      const back = await app.request("/rehydrate", { method: "POST", body: compacted });
      expect(await back.text()).toBe(body);
    },
  );
});
