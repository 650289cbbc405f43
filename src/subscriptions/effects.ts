// What a charge's move means for a subscription, applied inside the move's own transaction
// (applyChargeMove), so the charge, the subscription and their events commit together and a
// crash can never leave a paid period unrecorded or a subscription without its first charge.
import type { ChargeStatus } from '../domain/charge-states';
import { subscriptionEventData, type EventType } from '../domain/event-catalog';
import { newId } from '../domain/ids';
import { daysAfter, periodBoundary } from '../domain/subscription-calendar';
import { DEFAULT_RETRY_DAYS, presentSubscription, subscriptionNow } from '../domain/subscriptions';
import { recordEvents } from '../events/record';
import { linkChargeToSubscription, type ChargeRow } from '../storage/charges';
import { findCheckoutByIdUnscoped, type CheckoutRow } from '../storage/checkouts';
import type { Db } from '../storage/db';
import { findMerchant, type MerchantRow } from '../storage/merchants';
import { findPaymentMethod, saveForRenewals } from '../storage/payment-methods';
import {
  customerClockOffset,
  findCheckoutSubscription,
  findSubscriptionByIdUnscoped,
  insertSubscription,
  updateSubscription,
  type SubscriptionChanges,
  type SubscriptionRow,
} from '../storage/subscriptions';

export interface SubscriptionEffects {
  /** Outbox events recorded in the transaction, to dispatch after the commit. */
  eventIds: string[];
  /** Subscriptions created in the transaction, whose renewal workflow starts after the commit. */
  created: string[];
}

/** A renewal's first outcomes that pay nothing. */
const UNPAID_OUTCOMES: ReadonlySet<ChargeStatus> = new Set<ChargeStatus>(['failed', 'cancelled']);

const NONE: SubscriptionEffects = Object.freeze({ eventIds: [], created: [] }) as SubscriptionEffects;

/**
 * Whether a charge's move may concern a subscription: a renewal's, or a charge of a subscription
 * checkout. When not, applySubscriptionEffects does nothing and the move's events describe no
 * subscription, so the move needs no subscription row.
 */
export function concernsSubscription(charge: Pick<ChargeRow, 'subscription_period'>, checkout: Pick<CheckoutRow, 'subscription'>): boolean {
  return (charge.subscription_period ?? 0) > 0 || Boolean(checkout.subscription);
}

/** Called by applyChargeMove after the compare-and-set, before the charge's own event is built. */
export async function applySubscriptionEffects(trx: Db, from: ChargeStatus, charge: ChargeRow, knownCheckout?: CheckoutRow): Promise<SubscriptionEffects> {
  if (charge.transaction_type !== 'credit') return NONE;
  if (knownCheckout && !concernsSubscription(charge, knownCheckout)) return NONE;
  // Only a renewal's first outcome counts; a later reversal (returned, refunded) leaves the period paid.
  const outcome = from === 'created' || from === 'pending';
  if ((charge.subscription_period ?? 0) > 0) {
    if (outcome && charge.status === 'succeeded') return renewalPaid(trx, charge);
    // A renewal cancelled while pending (a bank transfer the processor cancelled) paid nothing:
    // dunned like a failure. Left as it was, the subscription stayed due on a charge that had ended,
    // and its workflow found that same charge again at once, run after run, never charging anew.
    if (outcome && UNPAID_OUTCOMES.has(charge.status)) return renewalFailed(trx, charge);
    return NONE;
  }
  return charge.status === 'succeeded' ? createFromFirstCharge(trx, charge, knownCheckout) : NONE;
}

/**
 * The checkout's first successful charge creates its subscription and keeps the method for renewals.
 * Its subscription terms are fixed when it is created, so a row the caller read serves.
 */
async function createFromFirstCharge(trx: Db, charge: ChargeRow, knownCheckout?: CheckoutRow): Promise<SubscriptionEffects> {
  const checkout = knownCheckout ?? (await findCheckoutByIdUnscoped(trx, charge.checkout_id));
  if (!checkout?.subscription) return NONE;
  // One subscription per checkout (checkout_id is unique): a second success creates nothing.
  if (await findCheckoutSubscription(trx, checkout.id)) return NONE;
  const merchant = (await findMerchant(trx, charge.merchant_id))!;
  const paymentMethod = (await findPaymentMethod(trx, charge.merchant_id, charge.payment_method_id))!;
  // A sandbox customer on a test clock starts the subscription at the clock's time.
  const offset = merchant.environment === 'sandbox' ? await customerClockOffset(trx, merchant.id, charge.customer_id) : 0;
  const anchor = subscriptionNow(offset);
  const { interval, interval_count } = checkout.subscription;
  const end = periodBoundary(anchor, interval, interval_count, 1);
  const row = await insertSubscription(trx, {
    id: newId('subscription'),
    merchant_id: merchant.id,
    customer_id: charge.customer_id,
    checkout_id: checkout.id,
    payment_method_id: await saveForRenewals(trx, paymentMethod),
    first_charge_id: charge.id,
    status: 'active',
    interval,
    interval_count,
    amount_cents: charge.amount_cents,
    currency: charge.currency,
    anchor_at: anchor,
    period: 0,
    current_period_start: anchor,
    current_period_end: end,
    next_charge_at: end,
    clock_offset_ms: offset,
  });
  await linkChargeToSubscription(trx, charge.id, row.id);
  return { eventIds: await recordSubscriptionEvent(trx, merchant, ['subscription.created'], row, charge.id), created: [row.id] };
}

/** Loads the renewal's subscription, locked; null when the charge is not the renewal now due. */
async function dueSubscription(trx: Db, charge: ChargeRow): Promise<SubscriptionRow | null> {
  const sub = (await findSubscriptionByIdUnscoped(trx, charge.subscription_id!, true))!;
  // The workflow never charges a cancelled subscription; a stale or foreign period changes nothing.
  if (sub.status === 'cancelled' || charge.subscription_period !== sub.period + 1) return null;
  return sub;
}

/** A paid renewal starts the next period; periods stay on the anchor's calendar however late the payment. */
async function renewalPaid(trx: Db, charge: ChargeRow): Promise<SubscriptionEffects> {
  const sub = await dueSubscription(trx, charge);
  if (!sub) return NONE;
  const period = sub.period + 1;
  const end = periodBoundary(sub.anchor_at, sub.interval, sub.interval_count, period + 1);
  return update(trx, sub, charge, ['subscription.renewed'], {
    status: 'active',
    period,
    current_period_start: sub.current_period_end,
    current_period_end: end,
    next_charge_at: end,
    failed_attempts: 0,
  });
}

/**
 * Dunning: a failed renewal is retried the merchant's `subscription_retry_days` after the due date
 * (past_due meanwhile); when the last retry fails the subscription is cancelled for good.
 */
async function renewalFailed(trx: Db, charge: ChargeRow): Promise<SubscriptionEffects> {
  const sub = await dueSubscription(trx, charge);
  if (!sub) return NONE;
  const merchant = (await findMerchant(trx, sub.merchant_id))!;
  const schedule = merchant.settings.subscription_retry_days ?? DEFAULT_RETRY_DAYS;
  const failed = sub.failed_attempts + 1;
  if (failed <= schedule.length) {
    const nextChargeAt = daysAfter(sub.current_period_end, schedule[failed - 1]!);
    return update(trx, sub, charge, ['subscription.payment_failed'], { status: 'past_due', failed_attempts: failed, next_charge_at: nextChargeAt }, merchant);
  }
  return update(trx, sub, charge, ['subscription.payment_failed', 'subscription.cancelled'], {
    status: 'cancelled',
    failed_attempts: failed,
    next_charge_at: null,
    cancelled_at: subscriptionNow(sub.clock_offset_ms),
    cancellation_reason: 'payment_failed',
  }, merchant);
}

async function update(trx: Db, sub: SubscriptionRow, charge: ChargeRow, events: EventType[], changes: SubscriptionChanges, merchant?: MerchantRow): Promise<SubscriptionEffects> {
  const row = await updateSubscription(trx, sub.id, changes);
  const owner = merchant ?? (await findMerchant(trx, sub.merchant_id))!;
  return { eventIds: await recordSubscriptionEvent(trx, owner, events, row, charge.id), created: [] };
}

/** Records subscription.* events (opt-in) in the caller's transaction; answers those to dispatch. */
export async function recordSubscriptionEvent(trx: Db, merchant: MerchantRow, types: EventType[], row: SubscriptionRow, chargeId: string | null): Promise<string[]> {
  const data = subscriptionEventData({ checkoutId: row.checkout_id, customerId: row.customer_id, subscription: presentSubscription(row), chargeId });
  const refs = { checkoutId: row.checkout_id, chargeId, customerId: row.customer_id };
  const events = await recordEvents(trx, merchant, types.map((type) => ({ type, data, refs })));
  return events.filter((event) => event.enabled).map((event) => event.id);
}
