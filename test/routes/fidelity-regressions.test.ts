import { describe, expect, it } from "vitest";
import { SUPERSEDED } from "../../src/components/failed-run.js";
import { unfoldSearch } from "../../src/components/searchfold.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { CLEAN, postCompact, testApp } from "../support/app.js";
import { stagedDiff as stagedFixture } from "../support/staged-diff.js";

/**
 * Misrepresentations found in real transcripts, each in the shape it was found in, through
 * POST /compact with the default and the balanced preset, in both modes. Mask keeps every output here, so what
 * is checked is what the other components do to each one.
 */
const lines = (...items: string[]) => items.join("\n");

const stagedDiff = stagedFixture(
  Array.from({ length: 3 }, () => [
    "+def main():",
    "+    value = compute_the_value(argument, retries=3)",
    "+    return value",
    "+",
  ]).flat(),
);
const grepHits = lines(
  ...Array.from({ length: 91 }, (_, i) => `${i * 9 + 4}:        alias = self.alias_map[${i}]`),
);
const requirements = lines(
  ...Array.from(
    { length: 39 },
    (_, i) => `Requirement already satisfied: package-${i}>=1.0 in /usr/lib/python3/dist-packages`,
  ),
);
const ignored = "FAIL: bar.py was ignored because it is not in the test path";
const twoRuns = lines(
  "$ ./check.sh src",
  ignored,
  ...Array.from({ length: 30 }, (_, i) => `checked src/module_${i}.py: ok`),
  "$ ./check.sh src",
  ignored,
  ...Array.from({ length: 30 }, (_, i) => `checked src/module_${i}.py: ok`),
);
const failedFile = `${"testing/test_collection.py:88: in test_y\n    assert collect() == 3\nE   assert 2 == 3\n".repeat(6)}=== 1 failed, 80 passed in 3.10s ===`;
const passedTest =
  "collected 1 item\n\ntesting/test_collection.py .  [100%]\n\n=== 1 passed in 0.20s ===";

const outputs: ReadonlyArray<readonly [string, string]> = [
  ["git diff --cached", stagedDiff],
  ["grep -n alias_map django/db/models/sql/query.py | head -100", grepHits],
  ["pip install -r requirements.txt", requirements],
  ["./check.sh src && ./check.sh src", twoRuns],
  ["cd /testbed && python -m pytest testing/test_collection.py", failedFile],
  ["cd /testbed && python -m pytest testing/test_collection.py::TestX::test_y -q", passedTest],
];

function body(): string {
  const messages: unknown[] = [{ role: "user", content: "Why does collection fail?" }];
  outputs.forEach(([command, text], index) => {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${index}`,
          type: "function",
          function: { name: "Bash", arguments: JSON.stringify({ command }) },
        },
      ],
    });
    messages.push({ role: "tool", tool_call_id: `call_${index}`, content: text });
  });
  // The agent declares its tool, so full markers are ones the model could expand (§8.1).
  const tools = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];
  return JSON.stringify({ model: "gpt-4o", messages, tools });
}

const keepAll: ConfigInput = { components: { mask: { keep_recent: 10 } } };

describe.each([
  ["reversible", keepAll],
  ["clean", { ...CLEAN, ...keepAll }],
] as const)("fidelity regressions, %s mode", (mode, config) => {
  it.each(["agent", "balanced", "aggressive"])("with the %s preset", async (preset) => {
    const { app } = testApp(config);
    const request = body();
    const response = await postCompact(app, request, {
      query: `?preset=${preset}`,
      headers: { "x-context-guru-cache": "cold" },
    });
    const compacted = await response.text();
    const { messages } = JSON.parse(compacted) as { messages: Array<{ content: unknown }> };
    const [diff, grep, pip, runs, wholeFile] = outputs.map(
      (_, index) => messages[2 + index * 2]?.content as string,
    );
    expect(diff).toBe(stagedDiff);
    expect(unfoldSearch(grep as string)).toBe(grepHits);
    expect(pip?.split("\n")[0]).toBe(requirements.split("\n")[0]);
    expect(pip).toContain("Requirement already satisfied: package-38>=1.0");
    expect(runs?.split("\n").filter((line) => line.startsWith(ignored))).toHaveLength(2);
    expect(wholeFile).not.toContain(SUPERSEDED);
    expect(wholeFile).toContain("=== 1 failed, 80 passed in 3.10s ===");
    if (mode === "clean") return;
    const back = await app.request("/rehydrate", { method: "POST", body: compacted });
    expect(await back.text()).toBe(request);
  });
});
