import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Reads a file's text, or undefined when it cannot be read. */
export type ReadText = (path: string) => string | undefined;

const readText: ReadText = (path) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
};

/**
 * CPUs this process may use: the cores Node sees, bounded by the container's CPU quota (cgroup
 * v2 `cpu.max`, else v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), rounded up, at least 1.
 * A pod limited to one CPU on a 64-core node gets 1, not 64.
 */
export function cpuBudget(read: ReadText = readText, cores = availableParallelism()): number {
  const quota = cgroupQuota(read);
  return Math.max(1, quota === undefined ? cores : Math.min(cores, Math.ceil(quota)));
}

function cgroupQuota(read: ReadText): number | undefined {
  const v2 = read("/sys/fs/cgroup/cpu.max")?.trim().split(/\s+/);
  if (v2 && v2.length === 2) return ratio(v2[0], v2[1]);
  return ratio(
    read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")?.trim(),
    read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")?.trim(),
  );
}

function ratio(quota: string | undefined, period: string | undefined): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return q / p;
}

/**
 * Compaction worker threads for a CPU budget: one per CPU. With two or more, large bodies take
 * at most all but one of them (WorkerPool), so medium bodies keep a worker of their own; the
 * event loop's own work (probes, small requests, streams) is light beside them.
 */
export function workerCount(budget: number): number {
  return Math.max(1, budget);
}
