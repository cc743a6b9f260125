import { lowerThreadPriority } from "./thread-priority.js";

/**
 * Entry of a compaction worker thread. It lowers its own priority first, so that even loading
 * the compactor (the tokenizer's tables take a third of a second) yields the CPU to the event
 * loop, then loads and runs the worker.
 */
lowerThreadPriority();
await import("./worker-run.js");
