import type { ComponentReport, RevertReason } from "./report.js";

/** Thrown by a guard: the component's changes are thrown away and the run goes on (§4). */
export class Revert extends Error {
  constructor(
    readonly reason: RevertReason,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * Reports component `entry` reverted by `error`: a guard's Revert names its reason, anything
 * else the component threw is `threw`. What it wrote and saved no longer counts.
 */
export function recordRevert(entry: ComponentReport, error: unknown): void {
  entry.reverted =
    error instanceof Revert
      ? { reason: error.reason, detail: error.message }
      : { reason: "threw", detail: error instanceof Error ? error.message : String(error) };
  entry.keys = [];
  entry.tokensBefore = entry.tokensAfter = 0;
}
