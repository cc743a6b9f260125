import { decode } from "@toon-format/toon";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collapse } from "../../src/components/collapse.js";
import { format } from "../../src/components/format.js";
import { smartcrush } from "../../src/components/smartcrush.js";
import { toon } from "../../src/components/toon.js";
import { componentsSchema } from "../../src/config/schema.js";
import { cleanText } from "../../src/text/terminal.js";
import { fakeContext, toolOutputs } from "../support/component-context.js";

const options = componentsSchema.parse({});
const container = fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue()));
const record = fc.record({ id: fc.integer(), name: fc.string(), ok: fc.boolean() });

function reduceOne<T>(
  text: string,
  reduce: (output: ReturnType<typeof toolOutputs>[0], context: ReturnType<typeof fakeContext>) => T,
): T {
  const outputs = toolOutputs([text]);
  return reduce(outputs[0]!, fakeContext(outputs, { mode: "off" }));
}

describe("component invariants", () => {
  it("format keeps the parsed value and never grows the text", () => {
    fc.assert(
      fc.property(container, fc.integer({ min: 0, max: 4 }), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const result = reduceOne(text, (output, context) =>
          format.reduce(output, { ...options.format, min_tokens: 0 }, context),
        );
        if (result === undefined) return;
        expect(JSON.parse(result)).toEqual(JSON.parse(text));
        expect(result.length).toBeLessThan(text.length);
      }),
    );
  });

  it("toon, when adopted, decodes back to the same value", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 2, maxLength: 20 }), (records) => {
        const text = JSON.stringify(records, null, 2);
        const result = reduceOne(text, (output, context) =>
          toon.reduce(output, { ...options.toon, min_tokens: 0 }, context),
        );
        if (result !== undefined) expect(decode(result)).toEqual(records);
      }),
    );
  });

  it("textclean is idempotent and leaves text without ESC or CR unchanged", () => {
    const terminalText = fc.string({
      unit: fc.constantFrom(
        "a",
        "é",
        " ",
        "\n",
        "\r",
        "\x1b",
        "[",
        "3",
        "1",
        "m",
        "]",
        "\x07",
        ";",
      ),
    });
    fc.assert(
      fc.property(terminalText, (text) => {
        const once = cleanText(text);
        expect(cleanText(once)).toBe(once);
        if (!text.includes("\x1b") && !text.includes("\r")) expect(once).toBe(text);
      }),
    );
  });

  it("collapse keeps exactly the head and tail lines", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom("x", "y", " "), minLength: 1 }), {
          minLength: 1,
          maxLength: 60,
        }),
        (lines) => {
          const text = lines.join("\n");
          const small = { ...options.collapse, max_tokens: 1, head_lines: 3, tail_lines: 2 };
          const result = reduceOne(text, (output, context) =>
            collapse.reduce(output, small, context),
          );
          if (lines.length <= 5) {
            expect(result).toBeUndefined();
            return;
          }
          const kept = (result as string).split("\n");
          expect(kept.slice(0, 3)).toEqual(lines.slice(0, 3));
          expect(kept.slice(-2)).toEqual(lines.slice(-2));
          expect(kept[3]).toBe(`\u2026 (${lines.length - 5} lines omitted)`);
        },
      ),
    );
  });

  it("smartcrush keeps an in-order subsequence of the items", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 5, maxLength: 30 }), (items) => {
        const text = JSON.stringify(items);
        const result = reduceOne(text, (output, context) =>
          smartcrush.reduce(output, { ...options.smartcrush, min_tokens: 0 }, context),
        );
        if (result === undefined) return;
        const match = /^(.*) \[(\d+) of (\d+) items shown\]$/s.exec(result);
        expect(match?.[3]).toBe(String(items.length));
        const kept = JSON.parse(match?.[1] ?? "") as unknown[];
        expect(kept.length).toBe(Number(match?.[2]));
        let cursor = 0;
        for (const item of kept) {
          while (cursor < items.length && JSON.stringify(items[cursor]) !== JSON.stringify(item))
            cursor += 1;
          expect(cursor).toBeLessThan(items.length);
          cursor += 1;
        }
      }),
    );
  });
});
