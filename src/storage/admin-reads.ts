import type { Knex } from 'knex';
import type { Db } from './db';
import type { ChargeRow } from './charges';
import type { CheckoutRow } from './checkouts';
import type { CustomerRow } from './customers';
import { listAttempts, listDeliverySeries, type EventRow } from './events';
import { GEO_CHECK_MAX_AGE_MS, type GeoCheckRow } from './geo-checks';
import type { RefundRow } from './refunds';

/**
 * The operator's reads across every merchant (the admin API, behind the admin token). Not
 * scoped by merchant, hence this module and its names; never used on a merchant's request path.
 */

export type AdminCheckoutRow = CheckoutRow & { blocked_evidence: Record<string, unknown> | null };
export type AdminCustomerRow = CustomerRow & { restriction_evidence: Record<string, unknown> | null };

export async function findCheckoutUnscoped(db: Db, id: string): Promise<AdminCheckoutRow | undefined> {
  return db<AdminCheckoutRow>('checkouts').where({ id }).first();
}

export interface AdminSearch {
  merchantId?: string;
  customerId?: string;
  checkoutId?: string;
  chargeId?: string;
  /** Customers whose email contains this (case-insensitive). */
  email?: string;
}

/** A LIKE pattern matching `fragment` anywhere, its wildcards taken literally. */
export const containing = (fragment: string) => `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function emailMatches(db: Db, fragment: string) {
  return db('customers').select('id').whereILike('email', containing(fragment));
}

/** Narrows a query of checkouts to a search (the admin search, and the merchant dashboard's pages). */
export function narrowCheckouts(db: Db, query: Knex.QueryBuilder, s: AdminSearch): void {
  if (s.merchantId) query.where({ merchant_id: s.merchantId });
  if (s.customerId) query.where({ customer_id: s.customerId });
  if (s.checkoutId) query.where({ id: s.checkoutId });
  if (s.chargeId) query.whereIn('id', db('charges').select('checkout_id').where({ id: s.chargeId }));
  if (s.email) query.whereIn('customer_id', emailMatches(db, s.email));
}

/** Narrows a query of charges to a search. */
export function narrowCharges(db: Db, query: Knex.QueryBuilder, s: AdminSearch): void {
  if (s.merchantId) query.where({ merchant_id: s.merchantId });
  if (s.customerId) query.where({ customer_id: s.customerId });
  if (s.checkoutId) query.where({ checkout_id: s.checkoutId });
  if (s.chargeId) query.where({ id: s.chargeId });
  if (s.email) query.whereIn('customer_id', emailMatches(db, s.email));
}

/** Merchants' names by id, for pages that name the merchant beside a record. */
export async function findMerchantNamesUnscoped(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows: Array<{ id: string; name: string }> = ids.length ? await db('merchants').select('id', 'name').whereIn('id', [...new Set(ids)]) : [];
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function findCustomersUnscoped(db: Db, ids: string[]): Promise<CustomerRow[]> {
  return ids.length ? db<CustomerRow>('customers').whereIn('id', [...new Set(ids)]) : [];
}

export async function findPaymentMethodsUnscoped(db: Db, ids: string[]): Promise<Array<{ id: string; payment_type: string; details: Record<string, unknown> }>> {
  return ids.length ? db('payment_methods').select('id', 'payment_type', 'details').whereIn('id', [...new Set(ids)]) : [];
}

/** Everything a checkout's timeline is built from. */
export async function timelineRowsUnscoped(db: Db, checkout: CheckoutRow) {
  const charges = await db<ChargeRow>('charges').where({ checkout_id: checkout.id }).orderBy('created_at');
  const review = (await db('reviews').where({ checkout_id: checkout.id }).first()) ?? null;
  const events = await db<EventRow>('events').where({ checkout_id: checkout.id }).orderBy('seq');
  const attempts = await listAttempts(db, events.map((e) => e.id));
  const series = await listDeliverySeries(db, events.map((e) => e.id));
  // The geo checks that could have gated this checkout: from the reuse window before it opened until it ended.
  const open = checkout.state === 'open' || checkout.state === 'in_review';
  const geoChecks = await db<GeoCheckRow>('geo_checks')
    .where({ merchant_id: checkout.merchant_id, customer_id: checkout.customer_id })
    .where('checked_at', '>=', new Date(checkout.created_at.getTime() - GEO_CHECK_MAX_AGE_MS))
    .where('checked_at', '<=', open ? checkout.expires_at : checkout.updated_at)
    .orderBy('checked_at');
  const refunds = charges.length ? await db<RefundRow>('refunds').whereIn('charge_id', charges.map((c) => c.id)) : [];
  return { charges, review, events, attempts, series, geoChecks, refunds };
}

/**
 * Events a replay selects: outbox events the merchant had enabled (only those were ever delivered),
 * of merchants that have a webhook_url now (there is nowhere else to send them, and a delivery
 * with no URL would write no_webhook_url over the outcome the event log holds).
 */
export interface ReplayFilter {
  type?: string;
  merchantId?: string;
  from?: Date;
  to?: Date;
  failedOnly: boolean;
}

export async function findReplayableEventIdsUnscoped(db: Db, filter: ReplayFilter, limit: number): Promise<string[]> {
  const query = db('events as e')
    .join('merchants as m', 'm.id', 'e.merchant_id')
    .select('e.id')
    .where({ 'e.enabled': true, 'e.channel': 'outbox' })
    .whereRaw("m.settings->>'webhook_url' IS NOT NULL");
  if (filter.type) query.where({ 'e.type': filter.type });
  if (filter.merchantId) query.where({ 'e.merchant_id': filter.merchantId });
  if (filter.from) query.where('e.created_at', '>=', filter.from);
  if (filter.to) query.where('e.created_at', '<', filter.to);
  if (filter.failedOnly) query.where({ 'e.delivery_status': 'failed' });
  const rows = await query.orderBy('e.seq').limit(limit);
  return rows.map((r: { id: string }) => r.id);
}
