import type { SessionLedger } from "../session/ledger.js";
import { updateSharedNumber } from "../store/shared-number.js";
import type { Store } from "../store/types.js";
import {
  DEPLOYMENT_WEIGHT,
  type LifetimeBounds,
  type LifetimeEvidence,
  stepLifetime,
} from "./lifetime.js";

/**
 * The deployment's learned cache lifetime (§4a "Observed cache state"): one number every session
 * moves — of the process on the memory store, of every replica on Redis — kept as a shared number
 * of the store and moved by the rule of lifetime.ts through an atomic read-modify-write, the
 * same on every backend.
 */

/** The store's shared number that holds it (ms). */
export const DEPLOYMENT_LIFETIME = "lifetime";

/** How long it outlives its last evidence. */
export const DEPLOYMENT_LIFETIME_TTL_MS = 7 * 24 * 3600 * 1000;

/** The deployment's learned lifetime; undefined while nothing has moved it, or unreadable. */
export function readDeploymentLifetime(store: Pick<Store, "sharedNumber">) {
  return store.sharedNumber(DEPLOYMENT_LIFETIME).catch(() => undefined);
}

/** `ledger` with the deployment's learned lifetime beside the session's own. */
export function withDeploymentLifetime(
  ledger: SessionLedger,
  deployment: number | undefined,
): SessionLedger {
  if (deployment === undefined) return ledger;
  return { ...ledger, learned: { session: ledger.learned?.session, deployment } };
}

/**
 * Moves the deployment's learned lifetime DEPLOYMENT_WEIGHT of a step towards `evidence` (from
 * `bounds.priorMs` while unset), atomically with every other replica's steps. `known` is the value
 * the request read with its ledger: still current, the step costs one store call. Resolves to
 * the lifetime after the step.
 */
export function stepDeploymentLifetime(
  store: Pick<Store, "swapSharedNumber">,
  evidence: LifetimeEvidence,
  bounds: LifetimeBounds,
  known: number | undefined,
): Promise<number> {
  return updateSharedNumber(
    store,
    DEPLOYMENT_LIFETIME,
    { expected: known, ttlMs: DEPLOYMENT_LIFETIME_TTL_MS },
    (current) => stepLifetime(current ?? bounds.priorMs, evidence, DEPLOYMENT_WEIGHT, bounds),
  );
}
