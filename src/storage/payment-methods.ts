import { runPrepared, type Db } from './db';
import type { TokenizedMethod } from '../processors';

export interface PaymentMethodRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  payment_type: TokenizedMethod['payment_type'];
  details: TokenizedMethod['details'];
  /** What velocity limits count the method by (a card's number alone); null for methods stored before it existed. */
  number_key: string | null;
  fingerprint: string;
  processor_token: string;
  saved: boolean;
  created_at: Date;
  updated_at: Date;
}

const INSERT_SQL = `INSERT INTO payment_methods (id, merchant_id, customer_id, payment_type, details, fingerprint, number_key, processor_token, saved)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9) RETURNING *`;

export async function insertPaymentMethod(db: Db, row: Omit<PaymentMethodRow, 'created_at' | 'updated_at'>): Promise<PaymentMethodRow> {
  const values = [row.id, row.merchant_id, row.customer_id, row.payment_type, JSON.stringify(row.details), row.fingerprint, row.number_key, row.processor_token, row.saved];
  return (await runPrepared<PaymentMethodRow>(db, INSERT_SQL, values))[0];
}

/**
 * Saves a tokenized method for the customer: saving the same instrument again (same
 * fingerprint) answers the method already saved, so a customer never sees duplicates.
 */
export async function saveOrReusePaymentMethod(db: Db, row: Omit<PaymentMethodRow, 'created_at' | 'updated_at' | 'saved'>): Promise<PaymentMethodRow> {
  const result = await db.raw(
    `INSERT INTO payment_methods (id, merchant_id, customer_id, payment_type, details, fingerprint, number_key, processor_token, saved)
     VALUES (?, ?, ?, ?, ?::jsonb, ?, ?, ?, true)
     ON CONFLICT (customer_id, fingerprint) WHERE saved DO UPDATE SET updated_at = now(), number_key = COALESCE(payment_methods.number_key, EXCLUDED.number_key)
     RETURNING *`,
    [row.id, row.merchant_id, row.customer_id, row.payment_type, JSON.stringify(row.details), row.fingerprint, row.number_key, row.processor_token],
  );
  return result.rows[0] as PaymentMethodRow;
}

export async function findPaymentMethod(db: Db, merchantId: string, id: string): Promise<PaymentMethodRow | undefined> {
  return (await runPrepared<PaymentMethodRow>(db, 'SELECT * FROM payment_methods WHERE merchant_id = $1 AND id = $2', [merchantId, id]))[0];
}

/**
 * The saved methods of a checkout's customer (with the checkout's merchant), newest first, by the
 * checkout's id alone: for the wallet, which reads them beside the checkout's lookup and uses them
 * only once the checkout's client secret matched.
 */
export async function listSavedPaymentMethodsOfCheckoutUnscoped(db: Db, checkoutId: string): Promise<PaymentMethodRow[]> {
  return db<PaymentMethodRow>('payment_methods as pm')
    .join('checkouts as c', (on) => void on.on('c.merchant_id', 'pm.merchant_id').andOn('c.customer_id', 'pm.customer_id'))
    .where({ 'c.id': checkoutId, 'pm.saved': true })
    .orderBy('pm.updated_at', 'desc')
    .select('pm.*');
}

/**
 * Keeps the method for a subscription's renewals: marks it saved, or answers the customer's
 * method already saved for the same instrument (one saved method per fingerprint).
 */
export async function saveForRenewals(db: Db, pm: PaymentMethodRow): Promise<string> {
  if (pm.saved) return pm.id;
  const twin = await db<PaymentMethodRow>('payment_methods').where({ customer_id: pm.customer_id, fingerprint: pm.fingerprint, saved: true }).first();
  if (twin) return twin.id;
  await db('payment_methods').where({ id: pm.id }).update({ saved: true, updated_at: db.fn.now() });
  return pm.id;
}

/** Whether this customer has a succeeded deposit (credit charge) paid with an instrument of this fingerprint. */
export async function hasSucceededDepositFrom(db: Db, merchantId: string, customerId: string, fingerprint: string): Promise<boolean> {
  const row = await db('charges')
    .join('payment_methods', 'payment_methods.id', 'charges.payment_method_id')
    .where({
      'charges.merchant_id': merchantId,
      'charges.customer_id': customerId,
      'charges.transaction_type': 'credit',
      'charges.status': 'succeeded',
      'payment_methods.fingerprint': fingerprint,
    })
    .first('charges.id');
  return row !== undefined;
}

/**
 * Removes a payment method an attempt stored when the workflow then refused the attempt (a gate
 * blocked it, the checkout closed): only while no charge, review or subscription uses it.
 */
export async function deleteUnusedPaymentMethod(db: Db, merchantId: string, id: string): Promise<void> {
  await db.raw(
    `DELETE FROM payment_methods pm WHERE pm.id = ? AND pm.merchant_id = ?
       AND NOT EXISTS (SELECT 1 FROM charges WHERE payment_method_id = pm.id)
       AND NOT EXISTS (SELECT 1 FROM reviews WHERE payment_method_id = pm.id)
       AND NOT EXISTS (SELECT 1 FROM subscriptions WHERE payment_method_id = pm.id)`,
    [id, merchantId],
  );
}
