import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collapse } from "../../src/components/collapse.js";
import { collapseJsonItems } from "../../src/components/record-collapse.js";
import { componentsSchema } from "../../src/config/schema.js";
import { classifyOutput } from "../../src/content/classify.js";
import { JSON_DOCUMENT_MAX_CHARS } from "../../src/content/json-limit.js";
import { itemsOfJson, outlineJson } from "../../src/content/json-outline.js";
import { checkFidelity } from "../../src/pipeline/fidelity.js";
import { CLEAN, COLD, postCompact, testApp } from "../support/app.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";
import { outputTexts, transcriptOf } from "../support/fact-arbitraries.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/** `curl` of a pod API: `count` pods, those at multiples of 997 Failed. */
function podsJson(count: number, space?: number): string {
  const pods = Array.from({ length: count }, (_, id) => ({
    id,
    name: `pod-${id}`,
    status: id % 997 === 0 ? "Failed" : "Running",
    active: id % 3 === 0,
    labels: { app: "web", tier: "frontend" },
  }));
  return JSON.stringify(pods, null, space);
}

/** The document before smartcrush's count, and the count. */
function shownPart(text: string): { document: string; kept: number; of: number } {
  const shown = / \[(\d+) of (\d+) items shown\](?: .*)?$/s.exec(text);
  if (!shown) throw new Error(`no count in ${text.slice(-200)}`);
  return { document: text.slice(0, shown.index), kept: Number(shown[1]), of: Number(shown[2]) };
}

describe("the outline of a JSON document", () => {
  it("agrees with JSON.parse on the items of arrays and the members of objects", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())),
        fc.constantFrom(undefined, 2, "\t"),
        (value, space) => {
          const text = JSON.stringify(value, null, space);
          const outline = outlineJson(` \n${text}\n`);
          expect(outline).toBeDefined();
          const children = outline?.children ?? [];
          const expected = Array.isArray(value) ? value : Object.values(value);
          expect(
            children.map(({ start, end }) => JSON.parse(` \n${text}\n`.slice(start, end))),
          ).toEqual(expected.map((item) => JSON.parse(JSON.stringify(item))));
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it("reads the strings within items whole, however many escapes and strings they hold", () => {
    // Quotes, backslashes and brackets, escaped by JSON.stringify, and up to 300 strings in a
    // row: past the strings one match reads, reading goes on as it began.
    const stringText = fc
      .array(fc.constantFrom('"', "\\", "[", "]", "{", "}", "a", " ", "\n", "é"), {
        maxLength: 700,
      })
      .map((chars) => chars.join(""));
    const item = fc.oneof(
      fc.array(stringText, { maxLength: 3 }),
      fc.record({ deep: fc.record({ texts: fc.array(stringText, { maxLength: 300 }) }) }),
      fc.array(fc.constantFrom("", "a", '"'), { minLength: 250, maxLength: 600 }),
    );
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom(undefined, 2),
        (items, envelope, space) => {
          const text = JSON.stringify(envelope ? { total: 0, items } : items, null, space);
          const outline = outlineJson(text);
          const spans = envelope ? outline?.children[1]?.items : outline?.children;
          expect(spans?.map(({ start, end }) => JSON.parse(text.slice(start, end)))).toEqual(items);
        },
      ),
      { numRuns: Math.ceil(PROPERTY_RUNS / 4) },
    );
  });

  it("reads a string of millions of escapes within an item", () => {
    const text = JSON.stringify([{ a: ['"'.repeat(3_000_000)] }, 1]);
    expect(outlineJson(text)?.children.map(({ start, end }) => text.slice(start, end))).toEqual([
      text.slice(1, -3),
      "1",
    ]);
  });

  it.each([
    ["an unterminated string within an item", '[{"a":["b", "c\\"]}, 1]'],
    ["a word within an item", '[{"a":[true, yes]}, 1]'],
    ["an unterminated string past many escapes", `[{"a":["${'\\"'.repeat(300)}]}, 1]`],
  ])("is undefined for %s", (_, text) => {
    expect(outlineJson(text)).toBeUndefined();
  });

  it.each([
    ["JSON lines", '{"a":1}\n{"a":2}'],
    ["trailing text", "[1,2] and more"],
    ["unbalanced", '[{"a":[1,2}]'],
    ["unterminated string", '["abc'],
    ["a scalar", '"just a string"'],
    ["a log line", "{build} compiled 12 files"],
    ["a closing bracket of the other kind", "[1,2}"],
  ])("is undefined for %s", (_, text) => {
    expect(outlineJson(text)).toBeUndefined();
  });

  it("finds the one array of an envelope, and none where two arrays could be meant", () => {
    const envelope = JSON.stringify({ total: 3, items: [1, 2, 3], next: null });
    const array = itemsOfJson(envelope, 2);
    expect(array && envelope.slice(array.open, array.close + 1)).toBe("[1,2,3]");
    expect(itemsOfJson(JSON.stringify({ a: [1, 2], b: [3, 4] }), 2)).toBeUndefined();
  });
});

describe("a JSON document over the parsed length", () => {
  const huge = podsJson(9000, 2);

  it("is long enough to be outlined rather than parsed", () => {
    expect(huge.length).toBeGreaterThan(JSON_DOCUMENT_MAX_CHARS);
  });

  it("keeps its json class, so no component folds it line by line", () => {
    expect(
      classifyOutput(huge, { id: "c1", name: "Bash", input: { command: "curl -s api/pods" } }),
    ).toBe("json");
    // JSON lines are many documents: text to the pipeline, not one document.
    const lines = Array.from({ length: 30_000 }, (_, n) => JSON.stringify({ n, msg: "ok" }));
    expect(classifyOutput(lines.join("\n"), undefined)).not.toBe("json");
  });

  it("a cut in the middle breaks it; whole items dropped with a count do not", () => {
    const cut = `${huge.slice(0, 700_000)}\n…\n${huge.slice(900_000)}`;
    expect(checkFidelity(huge, cut, "json", [])).toBe("json_broken");
    const collapsed = collapseJsonItems(huge, 20, 20) as string;
    expect(checkFidelity(huge, collapsed, "json", [])).toBeUndefined();
    expect(checkFidelity(huge, collapsed.replace(/\[\d+ of/, "[9000 of"), "json", [])).toBe(
      "json_broken",
    );
  });

  it.each([
    ["clean", CLEAN],
    ["reversible", {}],
  ] as const)(
    "is shortened by whole items through the default preset in %s mode, every Failed pod kept",
    async (mode, config) => {
      const { app } = testApp(config);
      const body = transcriptOf("openai", [
        { text: huge, name: "Bash", input: { command: "curl -s https://api.local/pods" } },
      ]);
      const response = await postCompact(app, body, { headers: COLD });
      const compacted = await response.text();
      const returned = outputTexts("openai", compacted)[0] as string;
      expect(returned.length).toBeLessThan(huge.length / 100);
      expect(returned).not.toMatch(/repeated \d+ lines|\(x\d+\)/);
      const { document, kept, of } = shownPart(returned);
      const items = JSON.parse(document) as Array<{ id: number; status: string }>;
      expect(items).toHaveLength(kept);
      expect(of).toBe(9000);
      const pods = JSON.parse(huge) as Array<{ id: number; status: string }>;
      // Every kept item is one received item, whole; every Failed pod is among them.
      for (const item of items) expect(item).toEqual(pods[item.id]);
      const failed = pods.filter((pod) => pod.status === "Failed").map((pod) => pod.id);
      expect(items.filter((item) => item.status === "Failed").map((item) => item.id)).toEqual(
        failed,
      );
      if (mode === "clean") return;
      expect(returned).toMatch(/<<cg:[0-9a-f]+>>$/);
      const back = await app.request("/rehydrate", { method: "POST", body: compacted });
      expect(await back.text()).toBe(body);
    },
  );
});

describe("a pretty JSON array over collapse's fact budget", () => {
  it("keeps the first and last items within the line budgets and every notable one", () => {
    const text = podsJson(3000, 2);
    const collapsed = collapseJsonItems(text, 20, 20) as string;
    const { document, kept, of } = shownPart(collapsed);
    const ids = (JSON.parse(document) as Array<{ id: number }>).map((pod) => pod.id);
    // Items of 10 lines: two within 20 lines at each end, and pods 0, 997, 1994 and 2991.
    expect(ids).toEqual([0, 1, 997, 1994, 2991, 2998, 2999]);
    expect([kept, of]).toEqual([7, 3000]);
  });

  it("counts an item on one line as one line", () => {
    const { kept } = shownPart(collapseJsonItems(podsJson(3000), 20, 20) as string);
    // 20 first, 20 last, and pods 997 and 1994 between.
    expect(kept).toBe(42);
  });
});

describe("collapse of one JSON document", () => {
  it("shortens a document on one line by items, as one spread over many", () => {
    const text = podsJson(3000);
    expect(text).not.toContain("\n");
    const [output] = toolOutputs([text]);
    const json = { ...(output as NonNullable<typeof output>), contentClass: "json" as const };
    const returned = collapse.reduce(
      json,
      componentsSchema.parse({}).collapse,
      fakeContext([json], { mode: "off" }),
    );
    const { document, kept, of } = shownPart(returned as string);
    expect([kept, of]).toEqual([42, 3000]);
    expect(JSON.parse(document)).toHaveLength(42);
  });
});
