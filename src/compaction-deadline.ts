import type { CompactOptions } from "./compactor.js";

/**
 * Runs one compaction under `limits.compact_timeout_ms`: past the deadline the caller gets
 * undefined (and sends the original bytes) and the compaction's signal aborts. A compaction that
 * reached its store write before the deadline has committed its answer and is awaited; one that
 * reaches it after is refused, so nothing is recorded for a body that was not returned.
 */
export function withinDeadline<T>(
  timeoutMs: number,
  run: (control: Pick<CompactOptions, "signal" | "commit">) => Promise<T>,
  outer?: AbortSignal,
): Promise<T | undefined> {
  const abort = new AbortController();
  let state: "running" | "committed" | "expired" = "running";
  const onOuterAbort = () => expire();
  let resolveDeadline: (value: undefined) => void = () => undefined;
  const deadline = new Promise<undefined>((resolve) => {
    resolveDeadline = resolve;
  });
  const expire = () => {
    if (state !== "running") return;
    state = "expired";
    abort.abort();
    resolveDeadline(undefined);
  };
  const timer = setTimeout(expire, timeoutMs);
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  const commit = () => {
    if (state === "expired") return false;
    state = "committed";
    return true;
  };
  const work = run({ signal: abort.signal, commit }).catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  });
}
