import type { Db } from '../storage/db';
import { NotFoundError } from '../http/errors';
import { presentLoaded } from '../charges/load';
import { presentLineItem } from '../checkouts/present';
import { presentCustomer } from '../customers/service';
import { presentEventLog } from '../events/service';
import { listCheckoutCharges } from '../storage/charges';
import { findCheckout, type CheckoutRow } from '../storage/checkouts';
import { findCustomer, type CustomerRow } from '../storage/customers';
import { findMerchantEvent } from '../storage/events';
import { pageCharges, pageCheckouts, pageEvents, pageSucceededRefunds, type PageRequest } from '../storage/pages';
import { listPage } from './list-page';
import { findRefund, type RefundRow } from '../storage/refunds';
import { findCheckoutReview } from '../storage/reviews';

/**
 * Reading back, for merchants (extensions to the contract). Every read is scoped to the API
 * key's merchant: another merchant's record, or a cursor naming one, is the contract's 422
 * not-found, indistinguishable from a missing id.
 */

function notFound(what: string, id: string): NotFoundError {
  return new NotFoundError(`${what} not found.`, `No ${what.toLowerCase()} ${id} exists for this business.`);
}

export function presentStoredCheckout(row: CheckoutRow) {
  return {
    id: row.id,
    customer_id: row.customer_id,
    type: row.type,
    flow: row.flow,
    state: row.state,
    blocked_reason: row.blocked_reason,
    line_items: row.line_items.map(presentLineItem),
    line_items_total_amount_cents: row.line_items_total_amount_cents,
    balance_amount_cents: row.balance_amount_cents,
    fixed_amount_cents: row.fixed_amount_cents,
    currency: row.currency,
    experience: row.experience,
    payment_options: row.payment_options,
    return_url: row.return_url,
    ...(row.subscription ? { subscription: { interval: row.subscription.interval, interval_count: row.subscription.interval_count } } : {}),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The checkout with its charges (oldest first) and its review, if any. */
export async function presentCheckoutDetail(db: Db, checkout: CheckoutRow) {
  const [charges, review] = await Promise.all([listCheckoutCharges(db, checkout.id), findCheckoutReview(db, checkout.id)]);
  return {
    ...presentStoredCheckout(checkout),
    charges: await Promise.all(charges.map((c) => presentLoaded(db, c))),
    review: review
      ? { id: review.id, status: review.status, amount_cents: review.amount_cents, created_at: review.created_at.toISOString(), decided_at: review.decided_at?.toISOString() ?? null }
      : null,
  };
}

export async function getCheckoutDetail(db: Db, merchantId: string, id: string) {
  const checkout = await findCheckout(db, merchantId, id);
  if (!checkout) throw notFound('Checkout', id);
  return presentCheckoutDetail(db, checkout);
}

export function presentStoredCustomer(row: CustomerRow) {
  return {
    ...presentCustomer(row),
    updated_at: row.updated_at.toISOString(),
    restricted: row.restriction_reason !== null,
    restriction_reason: row.restriction_reason,
  };
}

export async function getStoredCustomer(db: Db, merchantId: string, id: string) {
  const customer = await findCustomer(db, merchantId, id);
  if (!customer) throw notFound('Customer', id);
  return presentStoredCustomer(customer);
}

export function presentRefund(row: RefundRow) {
  return { id: row.id, charge_id: row.charge_id, amount_cents: row.amount_cents, source: row.source, created_at: row.created_at.toISOString() };
}

export async function getRefund(db: Db, merchantId: string, id: string) {
  const refund = await findRefund(db, merchantId, id);
  if (!refund) throw notFound('Refund', id);
  return presentRefund(refund);
}

export async function getEvent(db: Db, merchantId: string, id: string) {
  const event = await findMerchantEvent(db, merchantId, id);
  if (!event) throw notFound('Event', id);
  return (await presentEventLog(db, [event]))[0]!;
}

export const listCheckouts = (db: Db, merchantId: string, page: PageRequest, filters: { customer_id?: string }) =>
  listPage(() => pageCheckouts(db, merchantId, filters, page), (rows) => rows.map(presentStoredCheckout));

export const listCharges = (db: Db, merchantId: string, page: PageRequest, filters: { checkout_id?: string; customer_id?: string }) =>
  listPage(
    () => pageCharges(db, merchantId, filters, page),
    (rows) => Promise.all(rows.map((c) => presentLoaded(db, c))),
  );

/** Refunds made: a claim still at the processor is not one yet (see findRefund). */
export const listRefunds = (db: Db, merchantId: string, page: PageRequest) =>
  listPage(() => pageSucceededRefunds(db, merchantId, page), (rows) => rows.map(presentRefund));

/** `delivered_only` lists what the merchant was sent (enabled events); otherwise the whole log. */
export const listEvents = (db: Db, merchantId: string, page: PageRequest, filters: { type?: string; checkout_id?: string }, deliveredOnly: boolean) =>
  listPage(
    () => pageEvents(db, merchantId, filters, deliveredOnly, page),
    (rows) => presentEventLog(db, rows),
  );
