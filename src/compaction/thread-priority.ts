import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/** Nice value of a compaction thread: the event loop (nice 0) runs first when both are ready. */
export const WORKER_NICE = 10;

/**
 * Lowers the scheduling priority of the calling thread only (Linux: a thread is its own task,
 * named by /proc/thread-self, and `setpriority` on its id changes that thread alone). Compaction
 * then takes the CPU the event loop leaves, instead of competing with probes and small requests
 * for it. Raising a nice value needs no privilege; where it cannot be done the thread runs at
 * the process's priority. Returns the nice value set, or undefined.
 */
export function lowerThreadPriority(nice = WORKER_NICE): number | undefined {
  let task: string;
  try {
    task = readlinkSync("/proc/thread-self");
  } catch {
    return undefined;
  }
  const id = Number(/\/task\/(\d+)$/.exec(task)?.[1]);
  if (!Number.isInteger(id)) return undefined;
  try {
    setPriority(id, nice);
    return nice;
  } catch {
    return undefined;
  }
}
