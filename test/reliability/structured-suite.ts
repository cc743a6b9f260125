import assert from "node:assert/strict";
import { decode } from "@toon-format/toon";
import fc from "fast-check";
import { describe, it } from "vitest";
import { presets } from "../../src/config/presets.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { EXPAND_HINT, SENTINEL } from "../../src/expand/markers.js";
import { CLEAN, testApp } from "../support/app.js";
import { outputTexts, type Provider, transcriptOf } from "../support/fact-arbitraries.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";
import { type StructuredOutput, structuredOutputs } from "../support/structured-arbitraries.js";

/**
 * SPEC §5 "Fidelity" for structured outputs through `POST /compact`, every preset, cold turns
 * (every decision may be taken), over generated JSON, YAML, CSV/TSV and aligned tables
 * (test/support/structured-arbitraries.ts). Collapse runs at a small budget so record-wise
 * shortening is exercised on outputs of a few dozen records. For every output, unless it came
 * back as one whole-output `[…]` placeholder:
 * - every notable record (an error, a status that is not normal) is still there;
 * - records left out are counted where they were (`[k of n items shown]`, `… (n more rows)`):
 *   the counts add up to the records that are missing;
 * - JSON comes back as valid JSON (or lossless TOON) holding the same value, or fewer items
 *   with a count;
 * and in reversible mode `POST /rehydrate` gives the received body back byte for byte.
 */
export type Mode = "reversible" | "clean";

const RUNS = Math.max(4, Math.ceil(PROPERTY_RUNS / 20));
const SMALL_BUDGETS: ConfigInput = {
  components: { collapse: { max_tokens: 150, max_fact_tokens: 150, head_lines: 8, tail_lines: 6 } },
};
let sessions = 0;

export function structuredSuite(mode: Mode): void {
  const { app } = testApp({ ...(mode === "clean" ? CLEAN : {}), ...SMALL_BUDGETS });

  async function post(path: string, body: string, session: string): Promise<string> {
    const response = await app.request(path, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-context-guru-session": session,
        "x-context-guru-cache": "cold",
      },
    });
    assert.equal(response.status, 200, `${path} answers 200`);
    return response.text();
  }

  async function check(preset: string, provider: Provider, outputs: readonly StructuredOutput[]) {
    const session = `structured-${process.pid}-${++sessions}`;
    const body = transcriptOf(provider, outputs);
    const compacted = await post(`/compact?preset=${preset}`, body, session);
    const finals = outputTexts(provider, compacted);
    assert.equal(finals.length, outputs.length, "every tool output is still there");
    outputs.forEach((output, index) => {
      checkRecords(output, finals[index] as string, `${preset} output ${index} (${output.kind})`);
    });
    if (mode === "reversible") {
      assert.equal(await post("/rehydrate", compacted, session), body, "rehydrate(compact(x)) = x");
    }
  }

  describe(`structured outputs through every preset, ${mode} mode`, {
    timeout: 30 * 60_000,
  }, () => {
    it.each(Object.keys(presets))("%s: records kept whole, counted, or masked", async (preset) => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Provider>("openai", "anthropic"),
          structuredOutputs,
          (provider, outputs) => check(preset, provider, outputs),
        ),
        { numRuns: RUNS },
      );
    });
  });
}

const MARKER = /<<cg:[A-Za-z0-9_-]{1,64}>>/g;
const SHOWN = /\s*\[(\d+) of (\d+) items shown\]\s*$/;
const MORE = /\u2026 \((\d+) more (?:rows?|records?)\)/g;

/** What the model reads of the output, markers and the expand hint aside. */
function readable(text: string): string {
  return text.replace(MARKER, "").replaceAll(SENTINEL, "").replaceAll(EXPAND_HINT, "").trim();
}

function checkRecords(output: StructuredOutput, final: string, where: string): void {
  const seen = readable(final);
  const context = `${where}\n--- received\n${output.text}\n--- returned\n${final}`;
  if (/^\[[^\n]*\]$/.test(seen)) return;
  const missing = output.records.filter((record) => !seen.includes(record.name));
  for (const record of missing) {
    assert.ok(!record.notable, `notable record ${record.name} (${record.status}) lost: ${context}`);
  }
  if (output.kind === "json" || output.kind === "json-line" || output.kind === "envelope") {
    const shown = SHOWN.exec(seen);
    const document = shown ? seen.slice(0, shown.index) : seen;
    const value = parsedJsonOrToon(document);
    assert.ok(value !== undefined, `JSON came back as neither JSON nor TOON: ${context}`);
    if (shown) {
      assert.equal(
        Number(shown[2]),
        output.records.length,
        `the count names every item: ${context}`,
      );
      assert.equal(Number(shown[1]), output.records.length - missing.length, context);
    } else {
      assert.deepEqual(value.value, JSON.parse(output.text), `the same value: ${context}`);
    }
    return;
  }
  const counted = [...seen.matchAll(MORE)].reduce((sum, match) => sum + Number(match[1]), 0);
  assert.equal(counted, missing.length, `records left out are counted: ${context}`);
}

function parsedJsonOrToon(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    try {
      return { value: decode(text) };
    } catch {
      return undefined;
    }
  }
}
