import { ModelPool } from "./pool.js";

/** The pool of the process: every LLM-backed component shares its per-endpoint concurrency caps. */
export const defaultModelPool = new ModelPool();
