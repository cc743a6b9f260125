import { BenchApp, type Mode } from "./bench-app.js";
import type { BenchBody } from "./bench-body.js";
import { finalCheckpoints, type Savings, tokenSavings } from "./metrics.js";
import { type Elapsed, median, medians, parseStringify } from "./timing.js";

export interface MeasureOptions {
  readonly mode: Mode;
  readonly preset: string | undefined;
  /** Cold passes, each over a fresh service; the per-body cold time is their median. */
  readonly coldPasses: number;
  /** Requests per body in the warm pass. */
  readonly warmRuns: number;
  /** Parse + stringify runs per body for the floor. */
  readonly floorRuns: number;
}

export interface BodyResult {
  readonly name: string;
  readonly bytes: number;
  readonly floor: Elapsed;
  /** POST /compact through the app. */
  readonly cold: Elapsed;
  readonly warm: Elapsed;
  /** The Compactor alone, without HTTP. */
  readonly coldCore: Elapsed;
  readonly warmCore: Elapsed;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/** Ratios and times are CPU time unless named wall. */
export interface PassSummary {
  /** Median over bodies of (compact time / parse+stringify time). */
  readonly medianRatio: number;
  /** Σ compact time / Σ parse+stringify time. */
  readonly totalRatio: number;
  readonly medianMs: number;
  readonly totalMs: number;
  readonly medianWallMs: number;
}

export interface ModeResult {
  readonly mode: Mode;
  readonly preset: string;
  readonly cold: PassSummary;
  readonly warm: PassSummary;
  readonly coldCore: PassSummary;
  readonly warmCore: PassSummary;
  /** Message tokens of each body sent once, decided whole: what one request saves, not a session. */
  readonly savings: { readonly all: Savings; readonly final: Savings };
  readonly bodies: readonly BodyResult[];
}

/**
 * Measures one mode over a corpus: cold passes (a fresh service meets each body for the first
 * time, in corpus order), then a warm pass on the last service (its memos hold every body),
 * each next to the parse + stringify floor of the same bytes; token savings from the response
 * headers. The cold passes send each body decided whole (`x-context-guru-cache: cold`), the
 * warm pass sends it again as a warm turn would (every message already sent).
 */
export async function measureMode(
  bodies: readonly BenchBody[],
  options: MeasureOptions,
): Promise<ModeResult> {
  const { mode, preset } = options;
  const floors = bodies.map((item) => parseStringify(item.body, options.floorRuns));

  const cold = { "x-context-guru-cache": "cold" };
  const warmup = await BenchApp.start(mode, preset);
  for (const item of bodies) await warmup.compact(item.body, undefined, cold);
  await warmup.close();

  const coldSamples = bodies.map((): Elapsed[] => []);
  const coldCoreSamples = bodies.map((): Elapsed[] => []);
  const tokens = new Map<string, { before: number; after: number }>();
  let app = await BenchApp.start(mode, preset);
  for (let pass = 0; pass < options.coldPasses; pass++) {
    if (pass > 0) {
      await app.close();
      app = await BenchApp.start(mode, preset);
    }
    for (const [index, item] of bodies.entries()) {
      const call = await app.compact(item.body, undefined, cold);
      coldSamples[index]?.push(call.elapsed);
      coldCoreSamples[index]?.push(await app.compactCore(item.body, { cache: "cold" }));
      tokens.set(item.name, { before: call.tokensBefore, after: call.tokensAfter });
    }
  }
  const warm: Elapsed[] = [];
  const warmCore: Elapsed[] = [];
  for (const item of bodies) {
    const samples: Elapsed[] = [];
    const coreSamples: Elapsed[] = [];
    for (let run = 0; run < options.warmRuns; run++) {
      samples.push((await app.compact(item.body)).elapsed);
      coreSamples.push(await app.compactCore(item.body));
    }
    warm.push(medians(samples));
    warmCore.push(medians(coreSamples));
  }

  await app.close();

  const results: BodyResult[] = bodies.map((item, index) => {
    const count = tokens.get(item.name) ?? { before: Number.NaN, after: Number.NaN };
    return {
      name: item.name,
      bytes: Buffer.byteLength(item.body),
      floor: floors[index] as Elapsed,
      cold: medians(coldSamples[index] as Elapsed[]),
      warm: warm[index] as Elapsed,
      coldCore: medians(coldCoreSamples[index] as Elapsed[]),
      warmCore: warmCore[index] as Elapsed,
      tokensBefore: count.before,
      tokensAfter: count.after,
    };
  });
  const counts = (list: readonly BenchBody[]) =>
    list.map((item) => tokens.get(item.name) ?? { before: Number.NaN, after: Number.NaN });

  return {
    mode,
    preset: preset ?? "agent",
    cold: summarise(results, (result) => result.cold),
    warm: summarise(results, (result) => result.warm),
    coldCore: summarise(results, (result) => result.coldCore),
    warmCore: summarise(results, (result) => result.warmCore),
    savings: {
      all: tokenSavings(counts(bodies)),
      final: tokenSavings(counts(finalCheckpoints(bodies))),
    },
    bodies: results,
  };
}

function summarise(
  results: readonly BodyResult[],
  pass: (result: BodyResult) => Elapsed,
): PassSummary {
  let compact = 0;
  let floor = 0;
  for (const result of results) {
    compact += pass(result).cpuMs;
    floor += result.floor.cpuMs;
  }
  return {
    medianRatio: median(results.map((result) => pass(result).cpuMs / result.floor.cpuMs)),
    totalRatio: compact / floor,
    medianMs: median(results.map((result) => pass(result).cpuMs)),
    totalMs: compact,
    medianWallMs: median(results.map((result) => pass(result).wallMs)),
  };
}
