import type { Db } from './db';

export interface RefundRow {
  id: string;
  charge_id: string;
  merchant_id: string;
  amount_cents: number;
  processor_refund_id: string | null;
  source: string;
  /** The merchant's person who asked for a dashboard refund (their email); null otherwise. */
  requested_by?: string | null;
  status: 'pending' | 'succeeded';
  created_at: Date;
}

/**
 * The merchant's refund; another merchant's is absent, exactly like a missing one, and so is a
 * claim still at the processor (a pending row: no money has moved, and a decline deletes it).
 */
export async function findRefund(db: Db, merchantId: string, id: string): Promise<RefundRow | undefined> {
  return db<RefundRow>('refunds').where({ merchant_id: merchantId, id, status: 'succeeded' }).first();
}

/** The merchant's charge's refund row, its claim still at the processor (pending) included: absent once a decline withdrew the claim. */
export async function findRefundClaim(db: Db, merchantId: string, chargeId: string): Promise<RefundRow | undefined> {
  return db<RefundRow>('refunds').where({ merchant_id: merchantId, charge_id: chargeId }).first();
}

/** Unscoped by merchant: read by the refund workflow and the move path, never on a request path. */
export async function findRefundOfChargeUnscoped(db: Db, chargeId: string): Promise<RefundRow | undefined> {
  return db<RefundRow>('refunds').where({ charge_id: chargeId }).first();
}

/** The refund's claim on its charge (a pending row; a charge has at most one refund row). */
export async function insertPendingRefund(db: Db, row: Pick<RefundRow, 'id' | 'charge_id' | 'merchant_id' | 'amount_cents' | 'source'>): Promise<RefundRow> {
  const [inserted] = await db<RefundRow>('refunds').insert({ ...row, status: 'pending' }).returning('*');
  return inserted as RefundRow;
}

/** A claim the processor refused is withdrawn, so the charge may be refunded (or move) again. */
export async function deletePendingRefund(db: Db, chargeId: string): Promise<void> {
  await db('refunds').where({ charge_id: chargeId, status: 'pending' }).delete();
}

export async function markRefundSucceeded(db: Db, chargeId: string, processorRefundId: string): Promise<RefundRow | undefined> {
  const [row] = await db<RefundRow>('refunds')
    .where({ charge_id: chargeId })
    .update({ status: 'succeeded', processor_refund_id: processorRefundId })
    .returning('*');
  return row as RefundRow | undefined;
}

/** Names the merchant's person who asked for the charge's refund (the dashboard refund, once made). */
export async function setRefundRequester(db: Db, merchantId: string, chargeId: string, requestedBy: string): Promise<void> {
  await db('refunds').where({ merchant_id: merchantId, charge_id: chargeId }).update({ requested_by: requestedBy });
}
