import type { Client } from '@temporalio/client';
import type { ChargeStatus } from '../domain/charge-states';
import type { Logger } from '../logger';
import { everyWithoutOverlap } from '../periodic';
import { claimChargeForReconcile, findChargesPastLeaseUnscoped, noteOwnerSeen, type InProgressStatus } from '../storage/charge-leases';
import type { ChargeRow } from '../storage/charges';
import type { Db } from '../storage/db';
import { workflowMayOwnCharge } from '../temporal/charge-owners';

/**
 * The reconciler, after Kill Bill's Janitor. An attempt runs its charge's INSERT and processor call
 * inside its update's workflow task (a local activity), before Temporal records anything: a crash
 * then loses the task and the update while the charge stays `created`, and nothing would look at it
 * again, although the processor may have taken the money. Each worker sweeps for charges still
 * created, pending or held with no sign of an owner for a lease (RECONCILE_LEASE_SECONDS), and
 * settles each one no workflow is working on (workflowMayOwnCharge) by asking the processor under
 * the charge's idempotency key (activities/reconcile.ts). Its claim and a resumed attempt's renewal
 * are compare-and-sets on the charge (src/storage/charge-leases.ts): never both at the processor.
 * A settled charge frees its checkout for the next attempt (no charge in progress holds it), or the
 * checkout expires as usual.
 */

export interface ReconcilerDeps {
  db: Db;
  temporal: Client;
  logger: Logger;
}

export interface ReconcilerOptions {
  leaseMs: number;
  /** Settles a claimed charge (createChargeReconciler's settleInterrupted), answering where it ended. */
  settle: (charge: ChargeRow) => Promise<ChargeStatus>;
  batch?: number;
}

/** How many charges past the lease one sweep looks at; the rest wait for the next sweep. */
const SWEEP_BATCH = 100;

/** One sweep: answers the charges it settled, with where each one ended. */
export async function reconcileInterruptedCharges(deps: ReconcilerDeps, options: ReconcilerOptions): Promise<Array<{ chargeId: string; from: ChargeStatus; to: ChargeStatus }>> {
  const settled: Array<{ chargeId: string; from: ChargeStatus; to: ChargeStatus }> = [];
  for (const candidate of await findChargesPastLeaseUnscoped(deps.db, options.leaseMs, options.batch ?? SWEEP_BATCH)) {
    try {
      const status = candidate.status as InProgressStatus;
      // Asked before the claim: a claim of a charge whose workflow still runs its attempt would stall that attempt.
      if (await workflowMayOwnCharge(deps.temporal, candidate)) {
        await noteOwnerSeen(deps.db, candidate.id, status);
        continue;
      }
      const claimed = await claimChargeForReconcile(deps.db, candidate.id, status, options.leaseMs);
      if (!claimed) continue; // moved, resumed or claimed meanwhile
      const to = await options.settle(claimed);
      settled.push({ chargeId: claimed.id, from: claimed.status, to });
      deps.logger.warn({ charge_id: claimed.id, checkout_id: claimed.checkout_id, from: claimed.status, to }, 'reconciled a charge its attempt left unsettled');
    } catch (error) {
      deps.logger.warn({ err: error, charge_id: candidate.id }, 'could not reconcile a charge; will retry');
    }
  }
  return settled;
}

/** Sweeps every `intervalMs`; several workers may sweep at once (each charge is claimed by one). */
export function startReconciler(deps: ReconcilerDeps, options: ReconcilerOptions & { intervalMs: number }): () => Promise<void> {
  return everyWithoutOverlap(options.intervalMs, async () => {
    await reconcileInterruptedCharges(deps, options).catch((error: unknown) => deps.logger.warn({ err: error }, 'reconciler sweep failed; will retry'));
  });
}
