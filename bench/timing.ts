/** Elapsed wall time and CPU time (user + system, every thread of the process) in milliseconds. */
export interface Elapsed {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/**
 * Starts a clock; calling the result reads it. CPU time is what the benchmark compares: on a
 * shared machine, wall time also counts the slices other processes ran in.
 */
export function startClock(): () => Elapsed {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  return () => {
    const used = process.cpuUsage(cpu);
    return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
  };
}

/** The median of a non-empty list of samples. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("median of no samples");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The floor a JSON service cannot beat: one full parse and one full serialisation (median). */
export function parseStringify(body: string, runs: number): Elapsed {
  let sink = 0;
  for (let warmup = 0; warmup < 2; warmup++) sink += JSON.stringify(JSON.parse(body)).length;
  const samples: Elapsed[] = [];
  for (let run = 0; run < runs; run++) {
    const stop = startClock();
    sink += JSON.stringify(JSON.parse(body)).length;
    samples.push(stop());
  }
  if (sink < 0) throw new Error("unreachable");
  return medians(samples);
}

/** Wall and CPU medians taken separately. */
export function medians(samples: readonly Elapsed[]): Elapsed {
  return {
    wallMs: median(samples.map((sample) => sample.wallMs)),
    cpuMs: median(samples.map((sample) => sample.cpuMs)),
  };
}
