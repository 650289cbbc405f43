import type { Db } from './db';

export interface ReviewRow {
  id: string;
  merchant_id: string;
  checkout_id: string;
  customer_id: string;
  payment_method_id: string;
  amount_cents: number;
  status: 'pending' | 'approved' | 'declined';
  /** The one charge the approval authorized, once it exists. */
  charge_id: string | null;
  attempt_key: string | null;
  decided_at: Date | null;
  /** Who decided: a reviewer's name, or `admin API`. */
  decided_by?: string | null;
  created_at: Date;
}

export async function insertReview(db: Db, row: Pick<ReviewRow, 'id' | 'merchant_id' | 'checkout_id' | 'customer_id' | 'payment_method_id' | 'amount_cents' | 'attempt_key'>): Promise<ReviewRow> {
  const [inserted] = await db<ReviewRow>('reviews').insert(row).returning('*');
  return inserted as ReviewRow;
}

export async function findReviewUnscoped(db: Db, id: string): Promise<ReviewRow | undefined> {
  return db<ReviewRow>('reviews').where({ id }).first();
}

/** A checkout has at most one review (unique checkout_id); `lock` holds it for the transaction. */
export async function findCheckoutReview(db: Db, checkoutId: string, lock = false): Promise<ReviewRow | undefined> {
  const query = db<ReviewRow>('reviews').where({ checkout_id: checkoutId });
  return lock ? query.forUpdate().first() : query.first();
}

/** `decidedBy`: who decided, written in the same statement (absent for decisions sent without it). */
export async function decideReview(db: Db, id: string, status: 'approved' | 'declined', decidedBy?: string): Promise<ReviewRow> {
  const decider = decidedBy !== undefined ? { decided_by: decidedBy } : {};
  const [row] = await db<ReviewRow>('reviews').where({ id }).update({ status, decided_at: db.fn.now() as unknown as Date, ...decider }).returning('*');
  return row as ReviewRow;
}

/**
 * Spends an approval on the charge it authorized: true when this charge holds it (also on a
 * retry), false when it is not approved or another charge already spent it.
 */
export async function spendReview(db: Db, id: string, chargeId: string): Promise<boolean> {
  const updated = await db('reviews').where({ id, status: 'approved' }).whereNull('charge_id').update({ charge_id: chargeId });
  if (updated > 0) return true;
  return (await db<ReviewRow>('reviews').where({ id, charge_id: chargeId }).first()) !== undefined;
}

