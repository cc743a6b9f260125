import { explicitSessionKey } from "../session/key.js";
import { prefixSessionKey } from "../session/prefix-key.js";
import type { JobInput } from "./job.js";

/**
 * How much of a body is read, on the event loop, for the session its job belongs to: a
 * conversation's session key lies in its first messages (and what precedes them), and reading
 * this much costs well under a millisecond whatever the body's size.
 */
export const SESSION_WINDOW = 64 * 1024;

/**
 * The session a compaction job belongs to, for the worker pool to send a session's jobs to the
 * worker that ran its last one (src/compaction/worker-pool.ts), known without parsing the body:
 * an explicit id (the header, or the key a proxy route derived from the body it had parsed) as
 * the compactor reads it; else the session key of the body's first SESSION_WINDOW bytes
 * (characters for a body already decoded), read by prefixSessionKey. Undefined when that window
 * holds no conversation: the job then takes any free worker.
 */
export function jobSession(input: JobInput, explicit: string | undefined): string | undefined {
  const key = explicitSessionKey(explicit);
  if (key !== undefined) return key;
  if (typeof input === "string") return prefixSessionKey(input.slice(0, SESSION_WINDOW));
  const length = Math.min(input.byteLength, SESSION_WINDOW);
  // A character cut at the window's end, or bytes that are not UTF-8, read as U+FFFD: the
  // worker decides whether the body is text at all.
  return prefixSessionKey(Buffer.from(input.buffer, input.byteOffset, length).toString("utf8"));
}
