import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentCorpusBodies,
  agentCorpusDir,
  FUZZ_FAMILIES,
  hasAgentCorpus,
  mutatedCorpus,
  transcriptBody,
} from "../support/fuzz-arbitraries.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";
import { checkCompact, freshSession, MODES, type Mode, subject } from "./compact-invariants.js";

/**
 * §10 invariants of POST /compact over generated and hostile bodies: 200 (413 over the limit),
 * the input bytes or same-shape JSON, never more tokens, no marker leaks in clean mode, exact
 * rehydration in reversible mode, determinism, and no crash. One test file per mode runs this
 * suite, so the two modes run side by side.
 */
const numRuns = PROPERTY_RUNS;
/** Thousands of cases per property take minutes on a busy CI machine; cases themselves are fast. */
const timeout = 30 * 60_000;

const properties = FUZZ_FAMILIES.map(({ title, arbitrary }) => [title, arbitrary] as const);

export function propertySuite(mode: Mode): void {
  const target = subject(mode);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(() => {
    process.on("unhandledRejection", onUnhandled);
  });
  afterAll(() => {
    process.off("unhandledRejection", onUnhandled);
    expect(unhandled).toEqual([]);
  });

  describe(`POST /compact invariants, ${mode} mode`, { timeout }, () => {
    it.each(properties)("%s", async (_name, arbitrary) => {
      await fc.assert(
        fc.asyncProperty(arbitrary, (body) => checkCompact(target, body.bytes)),
        { numRuns },
      );
    });
  });

  if (!hasAgentCorpus) {
    console.warn(`mutated corpus properties skipped: no corpus at ${agentCorpusDir}`);
  }
  describe.skipIf(!hasAgentCorpus)(
    `POST /compact on corpus bodies, ${mode} mode`,
    { timeout },
    () => {
      it("holds every invariant on real bodies and their mutations", async () => {
        await fc.assert(
          fc.asyncProperty(mutatedCorpus(agentCorpusBodies()), (body) =>
            checkCompact(target, body.bytes),
          ),
          { numRuns },
        );
      });
    },
  );

  describe(`POST /compact body limit, ${mode} mode`, { timeout }, () => {
    const limit = 4096;
    const small = subject(mode, { limits: { body_bytes: limit } });

    it("answers 413 exactly over the limit and 200 at or under it", async () => {
      const padded = fc
        .tuple(transcriptBody, fc.integer({ min: limit - 64, max: limit + 64 }))
        .map(({ 0: body, 1: size }) => padTo(body.bytes, size));
      await fc.assert(
        fc.asyncProperty(padded, (bytes) => checkCompact(small, bytes)),
        { numRuns },
      );
    });
  });

  describe(`determinism across processes, ${mode} mode`, { timeout }, () => {
    it("two independent apps of one deployment give the same bytes for the same body", async () => {
      // Replicas of one deployment share its marker key (store.hash_key, or the one in Redis).
      // Two apps are built per case, so the store's entry index (allocated up front for
      // max_entries slots) is kept small; its size has no part in the output.
      const deployment = {
        store: {
          ...MODES[mode].store,
          hash_key: "one-deployment-key-0123456789",
          max_entries: 1000,
        },
      };
      await fc.assert(
        fc.asyncProperty(transcriptBody, async (body) => {
          const session = freshSession();
          const outputs = await Promise.all(
            [subject(mode, deployment), subject(mode, deployment)].map(async ({ app }) => {
              const response = await app.request("/compact", {
                method: "POST",
                body: body.bytes,
                headers: { "x-context-guru-session": session },
              });
              return Buffer.from(await response.arrayBuffer()).toString("hex");
            }),
          );
          expect(outputs[1]).toBe(outputs[0]);
        }),
        { numRuns },
      );
    });
  });
}

/** A JSON body of exactly `size` bytes: a padding member in front, or the body cut short. */
function padTo(bytes: Uint8Array, size: number): Uint8Array {
  const encoder = new TextEncoder();
  const rest = new TextDecoder().decode(bytes).replace(/^\s*\{/, "");
  const missing = size - encoder.encode(`{"pad":"",${rest}`).byteLength;
  const padded = `{"pad":"${"p".repeat(Math.max(missing, 0))}",${rest}`;
  return encoder.encode(padded).subarray(0, size);
}
