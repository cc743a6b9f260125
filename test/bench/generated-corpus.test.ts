import { describe, expect, it } from "vitest";
import { generateCorpus } from "../../bench/corpus/generate.js";
import { messageTexts } from "../../bench/metrics.js";
import { isRecord } from "../../src/wire/is-record.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { detectShape, wireShape } from "../../src/wire/registry.js";
import { readTranscript } from "../../src/wire/transcript.js";
import type { Provider } from "../../src/wire/types.js";

const corpus = generateCorpus({ sessions: 3, seed: 7 });

function transcriptOf(body: string, provider: Provider) {
  const parsed: unknown = JSON.parse(body);
  const scan = scanBody(body);
  if (!isRecord(parsed) || !Array.isArray(parsed.messages) || !scan) throw new Error("no body");
  return { parsed, scan, transcript: readTranscript(wireShape(provider), parsed.messages, scan) };
}

describe("generateCorpus", () => {
  it("gives the same bytes for the same seed", () => {
    const again = generateCorpus({ sessions: 3, seed: 7 });
    expect(again.map((entry) => entry.body)).toEqual(corpus.map((entry) => entry.body));
    expect(again.map((entry) => entry.name)).toEqual(corpus.map((entry) => entry.name));
  });

  it("gives other bytes for another seed", () => {
    const other = generateCorpus({ sessions: 3, seed: 8 });
    expect(other.map((entry) => entry.body)).not.toEqual(corpus.map((entry) => entry.body));
  });

  it("emits 4 checkpoints per session in both shapes, openai first", () => {
    expect(corpus).toHaveLength(3 * 4 * 2);
    expect(corpus.map((entry) => entry.provider)).toEqual(
      Array.from({ length: 24 }, (_, index) => (index % 2 === 0 ? "openai" : "anthropic")),
    );
    expect(corpus.map((entry) => entry.session)).toEqual(
      Array.from({ length: 24 }, (_, index) => Math.floor(index / 8)),
    );
    for (const entry of corpus) {
      expect(entry.name).toBe(
        `g${entry.session}-t${String(entry.turn).padStart(3, "0")}-${entry.provider}`,
      );
    }
  });

  it.each(corpus.map((entry) => [entry.name, entry] as const))(
    "%s is valid JSON of its shape with every tool output readable",
    (_, entry) => {
      const { parsed, transcript } = transcriptOf(entry.body, entry.provider);
      expect(detectShape(parsed).name).toBe(entry.provider);
      expect(transcript.outputs).toHaveLength(entry.toolOutputs);
      expect(entry.toolOutputs).toBeGreaterThanOrEqual(entry.turn);
      for (const output of transcript.outputs) {
        expect(output.call?.name).toMatch(/^(Read|Bash)$/);
      }
    },
  );

  it("keeps spellings a byte-preserving service must not normalise", () => {
    const openai = corpus.find((entry) => entry.provider === "openai")?.body ?? "";
    const anthropic = corpus.find((entry) => entry.provider === "anthropic")?.body ?? "";
    expect(openai).toMatch(/"temperature": ?1\.0[,\n]/);
    expect(openai).toMatch(/"top_p": ?1e0[,\n]/);
    expect(openai).toMatch(/"seed": ?1\d{18}[,\n]/);
    expect(anthropic).toMatch(/"maximum": ?18446744073709551615[,}\n]/);
    expect(anthropic).toMatch(/"top_k": ?1e2[,\n]/);
    for (const body of [openai, anthropic]) expect(body).toMatch(/\\u00e9|\\u201c|\\u2192/);
    expect(corpus.some((entry) => entry.body.includes("\\u001b["))).toBe(true);
  });

  it("replays one session: each checkpoint's messages are a byte prefix of the next", () => {
    for (const provider of ["openai", "anthropic"] as const) {
      const checkpoints = corpus
        .filter((entry) => entry.session === 1 && entry.provider === provider)
        .map((entry) => messageTexts(entry.body));
      for (let at = 1; at < checkpoints.length; at++) {
        const previous = checkpoints[at - 1] ?? [];
        expect(checkpoints[at]?.slice(0, previous.length)).toEqual(previous);
        expect(checkpoints[at]?.length).toBeGreaterThan(previous.length);
      }
    }
  });

  it("holds the outputs the components look for", () => {
    const texts = corpus
      .filter((entry) => entry.provider === "openai")
      .flatMap((entry) => transcriptOf(entry.body, "openai").transcript.outputs)
      .map((output) => output.text);
    expect(texts.some((text) => /^\s+\d+\t/.test(text))).toBe(true);
    expect(texts.some((text) => /\d+ failed|FAILED|failed \|/.test(text))).toBe(true);
    expect(texts.some((text) => text.includes("\r"))).toBe(true);
    expect(texts.some((text) => text.startsWith("[\n  {"))).toBe(true);
    expect(new Set(texts).size).toBeLessThan(texts.length);
  });

  it.each([
    [{ sessions: -1, seed: 1 }, "sessions must be a non-negative integer, got -1"],
    [{ sessions: 1, seed: 1.5 }, "seed must be an integer, got 1.5"],
    [{ sessions: 1, seed: 1, checkpoints: 0 }, "checkpoints must be a positive integer, got 0"],
    [
      { sessions: 1, seed: 1, turns: [3, 9] as const },
      "turns must be a range [min, max] with 6 ≤ min ≤ max",
    ],
  ])("rejects %o", (options, message) => {
    expect(() => generateCorpus(options)).toThrow(message);
  });
});
