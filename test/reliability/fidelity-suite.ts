import assert from "node:assert/strict";
import fc from "fast-check";
import { describe, it } from "vitest";
import { DUPLICATE } from "../../src/components/dedup.js";
import { unfoldSearch } from "../../src/components/searchfold.js";
import { presets } from "../../src/config/presets.js";
import { SENTINEL } from "../../src/expand/markers.js";
import { checkFidelity } from "../../src/pipeline/fidelity.js";
import { CLEAN, testApp } from "../support/app.js";
import {
  type FactOutput,
  factOutputs,
  outputTexts,
  type Provider,
  transcriptOf,
} from "../support/fact-arbitraries.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

/**
 * SPEC §5 "Fidelity" through `POST /compact`, for every preset, over generated transcripts of
 * diffs, search results, file reads and logs (test/support/fact-arbitraries.ts), each body sent
 * as a cold turn (`x-context-guru-cache: cold`, so every decision may be taken):
 * - no tool output comes back empty, or as markers and notes only;
 * - every line of a diff, search result or file read is in its output in order (search results
 *   read through `unfoldSearch`, searchfold's lossless fold), unless the output is a whole-output
 *   `[…]` placeholder or a head/tail collapse whose note counts what was left out;
 * - in clean mode, where nothing can be expanded, a pointer to an identical earlier output
 *   (dedup) accounts for an output only while that earlier output is visible: not itself
 *   replaced by a placeholder (masked, superseded, or a pointer);
 * - in reversible mode `POST /rehydrate` gives the received body back byte for byte.
 */
export type Mode = "reversible" | "clean";

const timeout = 30 * 60_000;
/** Half the usual count: a case is up to ten outputs of up to 260 lines, through one preset. */
const RUNS = Math.max(1, Math.ceil(PROPERTY_RUNS / 2));
let sessions = 0;

const reread: FactOutput = {
  kind: "file",
  text: Array.from({ length: 40 }, (_, i) => `${i + 1}\tvalue_${i} = compute_the_value(${i})`).join(
    "\n",
  ),
  name: "Read",
  input: { file_path: "/testbed/src/values.py" },
};
const failedRunLog: FactOutput = {
  kind: "log",
  text: `${"E   AssertionError: assert 3 == 4\n".repeat(12)}=== 1 failed, 41 passed in 2.31s ===`,
  name: "Bash",
  input: { command: "python -m pytest -q tests" },
};
const step = (index: number): FactOutput => ({
  kind: "log",
  text: `${`[build] step ${index}: compiled module src/module-${index}.ts\n`.repeat(12)}done`,
  name: "Bash",
  input: { command: `./build.sh ${index}` },
});
/** A re-read whose earlier read mask would hide; a failed run superseded by a run, then re-run. */
const POINTER_COUNTEREXAMPLES: ReadonlyArray<[Provider, FactOutput[]]> = [
  ["openai", [reread, step(1), step(2), step(3), reread]],
  [
    "anthropic",
    [failedRunLog, { ...failedRunLog, text: "=== 42 passed in 2.30s ===" }, failedRunLog],
  ],
];
const HIDDEN_TARGET = "points to an identical earlier output that is hidden";

export function fidelitySuite(mode: Mode, names: readonly string[] = Object.keys(presets)): void {
  const { app } = testApp(mode === "clean" ? CLEAN : {});

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

  type Rules = "outputs" | "pointers";

  async function check(rules: Rules, preset: string, provider: Provider, outputs: FactOutput[]) {
    const session = `fidelity-${process.pid}-${++sessions}`;
    const body = transcriptOf(provider, outputs);
    const compacted = await post(`/compact?preset=${preset}`, body, session);
    const finals = outputTexts(provider, compacted);
    assert.equal(finals.length, outputs.length, "every tool output is still there");
    const readable = finals.map((final, index) => readAs(outputs[index] as FactOutput, final));
    if (rules === "pointers") {
      checkPointers(outputs, readable);
      return;
    }
    outputs.forEach((output, index) => {
      const seen = readable[index] as string;
      const where = `output ${index} (${output.kind}, ${output.name} ${JSON.stringify(output.input)})`;
      if (output.text.trim() === "") return;
      const violation = checkFidelity(output.text, seen, output.kind, markersIn(seen));
      assert.equal(
        violation,
        undefined,
        `${where}: ${violation}\n--- received\n${output.text}\n--- returned\n${seen}`,
      );
    });
    if (mode === "reversible") {
      const back = await post("/rehydrate", compacted, session);
      assert.equal(back, body, "rehydrate(compact(x)) = x");
    }
  }

  const property = (rules: Rules, preset: string) =>
    fc.asyncProperty(
      fc.constantFrom<Provider>("openai", "anthropic"),
      factOutputs,
      (provider, outputs) => check(rules, preset, provider, outputs),
    );

  describe(`fidelity of every preset, ${mode} mode`, { timeout }, () => {
    it.each(names)("%s: every output verbatim, repacked or visibly reduced", async (preset) => {
      await fc.assert(property("outputs", preset), { numRuns: RUNS });
    });

    if (mode !== "clean") return;
    for (const preset of names) {
      it(`${preset}: a dedup pointer's target stays visible`, async () => {
        // The re-read file and the re-run that were once hidden behind a pointer, then generated cases.
        for (const [provider, outputs] of POINTER_COUNTEREXAMPLES) {
          await check("pointers", preset, provider, outputs);
        }
        await fc.assert(property("pointers", preset), { numRuns: RUNS });
      });
    }
  });
}

/** In clean mode a pointer to an identical earlier output stands for it only while that one is visible. */
function checkPointers(outputs: readonly FactOutput[], readable: readonly string[]): void {
  outputs.forEach((output, index) => {
    if ((readable[index] as string).trim() !== DUPLICATE) return;
    const target = outputs.findIndex(
      (earlier, at) =>
        at < index && earlier.text === output.text && !isPlaceholder(readable[at] as string),
    );
    assert.ok(target >= 0, `output ${index} (${output.kind}) ${HIDDEN_TARGET}`);
  });
}

/** What the model reads of an output: search results through searchfold's lossless fold. */
function readAs(output: FactOutput, final: string): string {
  return output.kind === "search" ? unfoldSearch(final) : final;
}

function markersIn(text: string): string[] {
  const markers = text.match(/<<cg:[A-Za-z0-9_-]{1,64}>>/g) ?? [];
  return text.includes(SENTINEL) ? [...markers, SENTINEL] : markers;
}

/** A whole-output placeholder: one `[…]` line, markers and the expand hint aside. */
function isPlaceholder(final: string): boolean {
  const lines = final
    .split("\n")
    .filter((line) => line.trim() !== "" && !/^<<cg:[\w-]+>>$/.test(line));
  return lines.length === 1 && /^\[.*\]/.test((lines[0] as string).trim());
}
