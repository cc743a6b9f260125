import { describe, expect, it } from "vitest";
import { cpuBudget, workerCount } from "../../src/compaction/cpu-budget.js";

/** The CPUs the process may use, from the container's quota, and the workers they get. */
const files = (entries: Record<string, string>) => (path: string) => entries[path];

describe("cpuBudget", () => {
  it.each([
    ["a cgroup v2 quota of two CPUs", { "/sys/fs/cgroup/cpu.max": "200000 100000\n" }, 64, 2],
    ["a cgroup v2 quota of half a CPU", { "/sys/fs/cgroup/cpu.max": "50000 100000" }, 64, 1],
    ["a cgroup v2 quota of 1.5 CPUs", { "/sys/fs/cgroup/cpu.max": "150000 100000" }, 64, 2],
    ["no cgroup v2 quota", { "/sys/fs/cgroup/cpu.max": "max 100000" }, 8, 8],
    [
      "a cgroup v1 quota of three CPUs",
      {
        "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "300000",
        "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000",
      },
      64,
      3,
    ],
    [
      "no cgroup v1 quota",
      {
        "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1",
        "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000",
      },
      4,
      4,
    ],
    ["a quota above the cores", { "/sys/fs/cgroup/cpu.max": "800000 100000" }, 2, 2],
    ["no cgroup files", {}, 6, 6],
  ])("%s", (_name, entries, cores, expected) => {
    expect(cpuBudget(files(entries), cores)).toBe(expected);
  });
});

describe("workerCount", () => {
  it.each([
    [1, 1],
    [2, 2],
    [8, 8],
  ])("%i CPUs get %i workers", (budget, workers) => {
    expect(workerCount(budget)).toBe(workers);
  });
});
