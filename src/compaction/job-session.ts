import { explicitSessionKey } from "../session/key.js";
import { prefixSessionKey, SESSION_WINDOW, windowSessionKey } from "../session/prefix-key.js";
import type { JobInput } from "./job.js";

/**
 * The session a compaction job belongs to, for the worker pool to send a session's jobs to the
 * worker that ran its last one (src/compaction/worker-pool.ts), known without parsing the body:
 * an explicit id (the header, or the key a proxy route derived from the body it had parsed) as
 * the compactor reads it; else the session key of the body's first SESSION_WINDOW bytes
 * (characters for a body already decoded), read by prefixSessionKey (windowSessionKey). Undefined when that window
 * holds no conversation: the job then takes any free worker.
 */
export function jobSession(input: JobInput, explicit: string | undefined): string | undefined {
  if (typeof input === "string") return windowSessionKey(input, explicit);
  const key = explicitSessionKey(explicit);
  if (key !== undefined) return key;
  const length = Math.min(input.byteLength, SESSION_WINDOW);
  // A character cut at the window's end, or bytes that are not UTF-8, read as U+FFFD: the
  // worker decides whether the body is text at all.
  return prefixSessionKey(Buffer.from(input.buffer, input.byteOffset, length).toString("utf8"));
}
