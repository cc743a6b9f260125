import type { CompactResult } from "../compact/compactor.js";
import type { Logger } from "./logger.js";

/**
 * One warning line per cheap-model call that gave no answer (§5: the component then left the
 * request as it was): component, model name, why (`model answered HTTP 503 (2 attempts)`,
 * `model endpoint unreachable (ECONNREFUSED)`, `no model answer within 8000 ms`), attempts and
 * duration. Never the endpoint's URL, a credential, or any prompt or answer text.
 */
export function logModelFailures(logger: Logger, result: CompactResult): void {
  for (const component of result.report?.components ?? []) {
    for (const call of component.modelCalls ?? []) {
      if (call.outcome !== "failed") continue;
      logger.warn(
        {
          component: component.name,
          model: call.model,
          reason: call.reason,
          attempts: call.attempts,
          duration_ms: Math.round(call.durationMs),
        },
        "model call failed",
      );
    }
  }
}
