import type { Db } from '../storage/db';
import { findCharge, type ChargeRow } from '../storage/charges';
import { findCustomer, type CustomerRow } from '../storage/customers';
import { findCheckoutByIdUnscoped, type CheckoutRow } from '../storage/checkouts';
import { findMerchant, type MerchantAtVersion, type MerchantRow } from '../storage/merchants';
import { findPaymentMethod } from '../storage/payment-methods';
import { NotFoundError } from '../http/errors';
import { presentCharge, type PresentedCharge } from './present';
import { presentSubscription } from '../domain/subscriptions';
import { findCheckoutSubscription } from '../storage/subscriptions';

/**
 * Loads a charge of this merchant with what its API shape needs. Another merchant's charge is
 * the same 422 as a missing one, so ids cannot be probed across merchants.
 */
export async function loadPresentedCharge(db: Db, merchantId: string, chargeId: string): Promise<PresentedCharge> {
  const charge = await findCharge(db, merchantId, chargeId);
  if (!charge) throw chargeNotFound(chargeId);
  return presentLoaded(db, charge);
}

export async function presentLoaded(db: Db, charge: ChargeRow): Promise<PresentedCharge> {
  const [customer, paymentMethod] = await Promise.all([
    findCustomer(db, charge.merchant_id, charge.customer_id),
    findPaymentMethod(db, charge.merchant_id, charge.payment_method_id),
  ]);
  if (!customer || !paymentMethod) throw new Error(`charge ${charge.id} references missing rows`);
  return presentCharge(charge, customer, paymentMethod);
}

export function chargeNotFound(chargeId: string): NotFoundError {
  return new NotFoundError('Charge not found.', `No charge ${chargeId} exists for this business.`);
}

/**
 * Rows of the charge the caller already read (an attempt reads each once). A checkout row serves
 * as read at any time: what its events describe of it (id, type, line items, subscription terms)
 * is fixed when it is created.
 */
export interface KnownChargeRows {
  customer?: CustomerRow;
  checkout?: CheckoutRow;
  /** The charge as its mover last read or wrote it: a move decided from it is made only while it is still so. */
  charge?: ChargeRow;
  /**
   * The merchant as its mover read it, with its row's version: a move decided from the charge as
   * read records its events by these settings only while the row is still at that version.
   */
  merchant?: MerchantAtVersion;
}

/**
 * What a charge's events describe and go by: its checkout, customer and merchant. Sequential
 * reads, so it runs inside a transaction (one connection) as well as on the pool. The merchant is
 * always read here: its settings decide whether each event is delivered and where, and its secrets
 * sign the first attempt, as they stand when the events are recorded, not as an attempt read them
 * before its processor call (a merchant may enable or disable an event, set its webhook URL or roll
 * its secret meanwhile).
 * The checkout and the customer only when not `known`.
 */
export async function loadChargeContext(db: Db, charge: Pick<ChargeRow, 'checkout_id' | 'customer_id' | 'merchant_id'>, known?: KnownChargeRows) {
  const row = known?.checkout ?? (await findCheckoutByIdUnscoped(db, charge.checkout_id))!;
  // Events of a subscription checkout describe the subscription as it is after the move.
  const live = row.subscription ? await findCheckoutSubscription(db, row.id) : undefined;
  const checkout = { ...row, live_subscription: live ? presentSubscription(live) : null };
  const customer = known?.customer ?? (await findCustomer(db, charge.merchant_id, charge.customer_id))!;
  const merchant: MerchantRow = (await findMerchant(db, charge.merchant_id))!;
  return { checkout, customer, merchant };
}
