import { describe, expect, it } from "vitest";
import { scanBody } from "../../src/wire/json-scan.js";
import { CLEAN, postCompact, testApp } from "../support/app.js";
import { hasSharedCorpus, readShared } from "../support/shared-corpus.js";

/** Everything outside the rewritten tool-output strings, concatenated. */
function outsideStrings(text: string, paths: readonly string[]): string {
  const scan = scanBody(text);
  const spans = paths.map((path) => scan?.strings.get(path)).filter((span) => span !== undefined);
  spans.sort((a, b) => a.start - b.start);
  let cursor = 0;
  let rest = "";
  for (const span of spans) {
    rest += text.slice(cursor, span.start);
    cursor = span.end;
  }
  return rest + text.slice(cursor);
}

describe.skipIf(!hasSharedCorpus)("reference corpus", () => {
  it("context.before.json: llmd-toon turns the JSON-array tool output into TOON", async () => {
    const body = readShared("reference/context.before.json");
    const { app } = testApp(CLEAN);
    const response = await postCompact(app, body, { query: "?preset=llmd-toon" });
    const out = await response.text();
    const before = JSON.parse(body) as { messages: Array<{ role: string; content: string }> };
    const after = JSON.parse(out) as typeof before;
    const index = before.messages.findIndex(
      (m) => m.role === "tool" && m.content.trim().startsWith("["),
    );
    expect(index).toBeGreaterThan(0);
    expect(after.messages[index]?.content).toMatch(/^\[\d+\]\{[^}]+\}:\n/);
    expect(Number(response.headers.get("x-context-guru-tokens-after"))).toBeLessThan(
      Number(response.headers.get("x-context-guru-tokens-before")),
    );
  });

  it("context.before.json in clean mode carries no marker and no sentinel", async () => {
    const { app } = testApp(CLEAN);
    for (const preset of ["agent", "aggressive", "balanced", "llmd-toon"]) {
      const out = await (
        await postCompact(app, readShared("reference/context.before.json"), {
          query: `?preset=${preset}`,
        })
      ).text();
      expect(out).not.toContain("<<cg:");
      expect(out).not.toContain("\u27eacg\u27eb");
      expect(out).not.toContain("context_guru_expand");
    }
  });

  it.each(["?provider=anthropic", ""])(
    "anthropic_tool_use.json compacts (%s) and every non-tool byte is unchanged",
    async (query) => {
      const body = JSON.stringify(
        (JSON.parse(readShared("reference/anthropic_tool_use.json")) as { body: unknown }).body,
      );
      // Two short tool results: keep only the newest, and nothing for need (the older one greps
      // the file the newest reads), so the older one is masked.
      const { app } = testApp({
        ...CLEAN,
        components: { mask: { keep_recent: 1, min_tokens: 10, working_set_tokens: 0 } },
      });
      const cold = { "x-context-guru-cache": "cold" };
      const out = await (await postCompact(app, body, { query, headers: cold })).text();
      expect(out).not.toBe(body);
      const before = scanBody(body);
      const after = scanBody(out);
      const changed = [...(before?.strings.keys() ?? [])].filter((path) => {
        const a = before?.strings.get(path);
        const b = after?.strings.get(path);
        return a && b && body.slice(a.start, a.end) !== out.slice(b.start, b.end);
      });
      expect(changed.length).toBeGreaterThan(0);
      for (const path of changed)
        expect(path).toMatch(/^\d+\/content\/\d+\/content(\/\d+\/text)?$/);
      expect(outsideStrings(out, changed)).toBe(outsideStrings(body, changed));
    },
  );
});
