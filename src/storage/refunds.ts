import type { Db } from './db';

export interface RefundRow {
  id: string;
  charge_id: string;
  merchant_id: string;
  amount_cents: number;
  processor_refund_id: string | null;
  source: 'api' | 'dashboard' | 'sandbox';
  created_at: Date;
}

/** The merchant's refund; another merchant's is absent, exactly like a missing one. */
export async function findRefund(db: Db, merchantId: string, id: string): Promise<RefundRow | undefined> {
  return db<RefundRow>('refunds').where({ merchant_id: merchantId, id }).first();
}

/** Admin only (not merchant-scoped): the refund of a charge, if it has one. */
export async function findRefundOfChargeUnscoped(db: Db, chargeId: string): Promise<RefundRow | undefined> {
  return db<RefundRow>('refunds').where({ charge_id: chargeId }).first();
}
