import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { containers } from "../../../src/components/cmdfilter/containers.js";
import { OutputLines } from "../../../src/components/cmdfilter/output-lines.js";
import { cmdfilter } from "../../../src/components/cmdfilter.js";
import { componentsSchema } from "../../../src/config/schema.js";
import { fakeContext, toolOutputs } from "../../support/component-context.js";
import { PROPERTY_RUNS } from "../../support/property-runs.js";

/**
 * The reference: an image layer's progress line as the pattern with two `\s` quantifiers after
 * the layer id finds it. containers.ts reads the spaces before a colon with the colon.
 */
const LAYER =
  /^\s*(?:[✔⠿\u2800-\u28ff]\s+)?[0-9a-f]{12}\s*:?\s+(?:Pulling fs layer|Waiting|Downloading|Verifying Checksum|Download complete|Extracting|Pull complete|Already exists)/u;

/** Whitespace of every kind: spaces and tabs, line ends within a line, and what is neither. */
const space = fc.constantFrom(" ", "  ", "\t", "\r", "\u2028", "\u00a0", "\v", "\f", "\u3000");
/** Pieces of layer ids, compose's marks and layer states. */
const word = fc.constantFrom(
  "0123456789ab",
  "a1b2c3",
  "d4e5f6",
  "g",
  ":",
  "::",
  "✔",
  "⠿",
  "\u2801",
  "Pulling fs layer",
  "Waiting",
  "Download complete",
  "Already exists",
  "Pull",
  "x",
);
const line = fc.array(fc.oneof(space, word), { maxLength: 10 }).map((pieces) => pieces.join(""));

const isLayerLine = (text: string) =>
  containers.plan(new OutputLines(text), ["docker"]).drop[0] === "layer progress line";

const options = { ...componentsSchema.parse({}).cmdfilter, min_tokens: 0 };

/** The filtered text in off mode (no marker), or undefined. */
function filtered(command: string, text: string): string | undefined {
  const outputs = toolOutputs([{ text, call: { input: { command } } }]);
  return cmdfilter.reduce(outputs[0]!, options, fakeContext(outputs, { mode: "off" })) as
    | string
    | undefined;
}

describe("containers filter", () => {
  it("drops as layer progress the lines the backtracking pattern finds", () => {
    fc.assert(
      fc.property(line, (text) => {
        expect(isLayerLine(text)).toBe(LAYER.test(text));
      }),
      { numRuns: PROPERTY_RUNS * 20 },
    );
  });

  it.each([
    ["a1b2c3d4e5f6: Pull complete", true],
    [" ✔ a1b2c3d4e5f6 Pull complete", true],
    ["a1b2c3d4e5f6 \u00a0: Waiting", true],
    ["a1b2c3d4e5f6\t \tExtracting 12MB/40MB", true],
    ["a1b2c3d4e5f6:Waiting", false],
    ["a1b2c3d4e5f6 :: Waiting", false],
  ])("%j is layer progress: %s", (text, expected) => {
    expect(LAYER.test(text)).toBe(expected);
    expect(isLayerLine(text)).toBe(expected);
  });

  // With two `\s` quantifiers after the layer id, this line takes time quadratic in its run of
  // spaces (minutes); with the spaces before a colon read with it, a few milliseconds.
  it("keeps a layer id followed by 900 000 spaces", () => {
    const hostile = `0123456789ab${" ".repeat(900_000)}x`;
    const text = [
      "Using default tag: latest",
      "a1b2c3d4e5f6: Pull complete",
      hostile,
      "Status: Downloaded newer image for nginx:latest",
    ].join("\n");
    expect(filtered("docker pull nginx", text)).toBe(
      [
        "Using default tag: latest",
        "\u2026 (1 layer progress line)",
        hostile,
        "Status: Downloaded newer image for nginx:latest",
      ].join("\n"),
    );
  });
});
