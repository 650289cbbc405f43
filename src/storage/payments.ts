import type { Knex } from 'knex';
import type { Db } from './db';
import { containing } from './admin-reads';
import type { CheckoutRow } from './checkouts';
import { UnknownCursorError, type Page, type PageRequest } from './pages';
import type { PaymentMethodRow } from './payment-methods';

/**
 * A payment as the merchant dashboard lists it: one checkout with what its charges and refunds
 * made of it. A checkout's charges (a failed attempt then a paid one, a subscription's renewals)
 * are one payment, never a row each.
 */

/** What a person filters payments by: deposits, purchases and subscriptions (flows of a deposit), or withdrawals. */
export const PAYMENT_KINDS = ['deposit', 'purchase', 'subscription', 'withdrawal'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

/**
 * A payment's status in words a merchant reads: refunds first (a refunded payment never reads as
 * paid), then whether money moved, then the last charge's status, then, with no charge yet, the
 * checkout's state.
 */
export const PAYMENT_STATUSES = [
  'succeeded', 'refunded', 'partially_refunded', 'failed', 'pending', 'processing', 'held', 'voided', 'returned', 'cancelled', 'open', 'in_review', 'expired', 'blocked',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export type PaymentRow = CheckoutRow & {
  kind: PaymentKind;
  payment_status: PaymentStatus;
  amount_cents: number;
  paid_cents: number;
  refunded_cents: number;
  last_charge_id: string | null;
  last_payment_method_id: string | null;
};

export interface PaymentFilter {
  status?: PaymentStatus;
  kind?: PaymentKind;
  createdFrom?: Date;
  /** Exclusive. */
  createdBefore?: Date;
  amountMinCents?: number;
  amountMaxCents?: number;
  customerId?: string;
  /** An id (checkout, charge, customer), or part of the customer's email or name, or of a product's name. */
  q?: string;
}

// Charges that moved money and kept it, or gave it back through a refund.
const PAID = "ch.status IN ('succeeded', 'refunded')";
const LAST = 'ORDER BY ch.created_at DESC, ch.id DESC';

/** The merchant's checkouts as payments (a derived table; every column of checkouts plus the payment's own). */
const PAYMENTS = `(
  SELECT c.*, s.last_charge_id, s.last_payment_method_id,
    coalesce(s.paid_cents, 0)::int AS paid_cents, coalesce(rf.refunded_cents, 0)::int AS refunded_cents,
    coalesce(c.fixed_amount_cents, c.line_items_total_amount_cents, c.balance_amount_cents, s.last_amount_cents, 0) AS amount_cents,
    CASE WHEN c.type = 'withdrawal' THEN 'withdrawal' WHEN c.flow IN ('purchase', 'subscription') THEN c.flow ELSE 'deposit' END AS kind,
    CASE
      WHEN rf.refunded_cents > 0 AND rf.refunded_cents >= s.paid_cents THEN 'refunded'
      WHEN rf.refunded_cents > 0 THEN 'partially_refunded'
      WHEN s.paid_cents > 0 THEN 'succeeded'
      WHEN s.last_status = 'created' THEN 'processing'
      WHEN s.last_status IS NOT NULL THEN s.last_status
      WHEN c.state = 'completed' THEN 'processing'
      ELSE c.state
    END AS payment_status
  FROM checkouts c
  LEFT JOIN LATERAL (
    SELECT sum(ch.amount_cents) FILTER (WHERE ${PAID}) AS paid_cents,
      (array_agg(ch.id ${LAST}))[1] AS last_charge_id,
      (array_agg(ch.status ${LAST}))[1] AS last_status,
      (array_agg(ch.amount_cents ${LAST}))[1] AS last_amount_cents,
      (array_agg(ch.payment_method_id ${LAST}))[1] AS last_payment_method_id
    FROM charges ch WHERE ch.checkout_id = c.id
  ) s ON true
  LEFT JOIN LATERAL (
    SELECT sum(r.amount_cents) AS refunded_cents FROM refunds r JOIN charges ch ON ch.id = r.charge_id WHERE ch.checkout_id = c.id AND r.status = 'succeeded'
  ) rf ON true
  WHERE c.merchant_id = ?
) AS payments`;

function narrow(db: Db, merchantId: string, query: Knex.QueryBuilder, f: PaymentFilter): void {
  if (f.status) query.where({ payment_status: f.status });
  if (f.kind) query.where({ kind: f.kind });
  if (f.createdFrom) query.where('created_at', '>=', f.createdFrom);
  if (f.createdBefore) query.where('created_at', '<', f.createdBefore);
  if (f.amountMinCents !== undefined) query.where('amount_cents', '>=', f.amountMinCents);
  if (f.amountMaxCents !== undefined) query.where('amount_cents', '<=', f.amountMaxCents);
  if (f.customerId) query.where({ customer_id: f.customerId });
  if (f.q) {
    const q = f.q;
    const fragment = containing(q);
    const people = db('customers').select('id').where({ merchant_id: merchantId }).where((inner) => {
      inner.whereILike('email', fragment).orWhereILike('first_name', fragment).orWhereILike('last_name', fragment)
        .orWhereRaw("coalesce(first_name, '') || ' ' || coalesce(last_name, '') ILIKE ?", [fragment]);
    });
    query.where((inner) => {
      inner.where({ id: q }).orWhere({ customer_id: q })
        .orWhereIn('id', db('charges').select('checkout_id').where({ merchant_id: merchantId, id: q }))
        .orWhereIn('customer_id', people)
        .orWhereRaw("EXISTS (SELECT 1 FROM jsonb_array_elements(line_items) li WHERE li->>'product_name' ILIKE ?)", [fragment]);
    });
  }
}

/** A page of the merchant's payments, newest first, narrowed by the filter. */
export async function pagePayments(db: Db, merchantId: string, filter: PaymentFilter, page: PageRequest): Promise<Page<PaymentRow>> {
  const query = db.from(db.raw(PAYMENTS, [merchantId]));
  narrow(db, merchantId, query, filter);
  if (page.startingAfter !== undefined) {
    const cursor = await db('checkouts').where({ merchant_id: merchantId, id: page.startingAfter }).first('id');
    if (!cursor) throw new UnknownCursorError(page.startingAfter);
    // Compared in SQL against the cursor row itself, so created_at keeps its microseconds.
    query.whereRaw('(created_at, id) < (SELECT created_at, id FROM checkouts WHERE id = ?)', [page.startingAfter]);
  }
  const rows = (await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit + 1)) as PaymentRow[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** The merchant's payment methods by id (the card a payment was paid with). */
export async function findPaymentMethodsByIds(db: Db, merchantId: string, ids: string[]): Promise<Map<string, PaymentMethodRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db<PaymentMethodRow>('payment_methods').where({ merchant_id: merchantId }).whereIn('id', [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, row]));
}
