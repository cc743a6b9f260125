import type { RevertReason } from "./report.js";

/** Thrown by a guard: the component's changes are thrown away and the run goes on (§4). */
export class Revert extends Error {
  constructor(
    readonly reason: RevertReason,
    detail: string,
  ) {
    super(detail);
  }
}
