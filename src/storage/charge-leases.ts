import type { Db } from './db';
import type { ChargeRow } from './charges';

/**
 * Who may act on a charge still in progress, by time. A charge's last sign of an owner is the
 * latest of its last move (`updated_at`), its hold's claim (`hold_sent_at`), an attempt resuming it
 * (`attempt_seen_at`) and the reconciler's own claim (`reconcile_claimed_at`). Past the lease with no
 * such sign, the reconciler may claim it; an attempt that resumes it renews the sign instead, unless
 * the reconciler claimed it within the lease. Both are compare-and-sets on the row, so exactly one
 * of them goes on to the processor.
 */
const LAST_SIGN = 'greatest(updated_at, hold_sent_at, attempt_seen_at, reconcile_claimed_at)';
const IN_PROGRESS = ['created', 'pending', 'held'] as const;
export type InProgressStatus = (typeof IN_PROGRESS)[number];

/**
 * Of every merchant (the worker's reconciler, never a request): charges still created, pending or
 * held whose last sign of an owner is older than the lease, oldest first.
 */
export async function findChargesPastLeaseUnscoped(db: Db, leaseMs: number, limit: number): Promise<ChargeRow[]> {
  return db<ChargeRow>('charges')
    .whereIn('status', [...IN_PROGRESS])
    .whereRaw('updated_at < now() - make_interval(secs => ?)', [leaseMs / 1000])
    .whereRaw(`${LAST_SIGN} < now() - make_interval(secs => ?)`, [leaseMs / 1000])
    .orderBy('updated_at')
    .limit(limit);
}

/** The reconciler's claim: the charge, still in `status` and past the lease, or undefined. */
export async function claimChargeForReconcile(db: Db, id: string, status: InProgressStatus, leaseMs: number): Promise<ChargeRow | undefined> {
  const [row] = await db<ChargeRow>('charges')
    .where({ id, status })
    .whereRaw(`${LAST_SIGN} < now() - make_interval(secs => ?)`, [leaseMs / 1000])
    .update({ reconcile_claimed_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row as ChargeRow | undefined;
}

/**
 * The reconciler found a workflow still working on the charge: its sign of an owner is renewed, so
 * the next sweeps pass over it for a lease and reach the charges behind it (a long settlement or hold
 * would otherwise head every sweep's batch for as long as it lasts).
 */
export async function noteOwnerSeen(db: Db, id: string, status: InProgressStatus): Promise<void> {
  await db('charges').where({ id, status }).update({ attempt_seen_at: db.fn.now() });
}

/**
 * An attempt resuming a charge it did not insert just now (a retried or redelivered attempt, an
 * approved or renewal charge): renews its sign of an owner, unless the reconciler claimed it within
 * the lease. Answers the charge, or undefined when it is no longer `created` or is the reconciler's.
 */
export async function renewAttemptLease(db: Db, id: string, leaseMs: number): Promise<ChargeRow | undefined> {
  const [row] = await db<ChargeRow>('charges')
    .where({ id, status: 'created' })
    .where((q) => q.whereNull('reconcile_claimed_at').orWhereRaw('reconcile_claimed_at < now() - make_interval(secs => ?)', [leaseMs / 1000]))
    .update({ attempt_seen_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row as ChargeRow | undefined;
}
