import type { AppDeps } from '../app-deps';
import { TEMPORAL_REACH_MS, withinReach } from '../temporal/deadlines';
import { presentSubscription, subscriptionNow } from '../domain/subscriptions';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import { listSubscriptionCharges, type ChargeRow } from '../storage/charges';
import { findCustomerByIdUnscoped } from '../storage/customers';
import { findMerchant, type MerchantRow } from '../storage/merchants';
import { findPaymentMethod } from '../storage/payment-methods';
import { dispatchCommitted } from '../events/dispatch';
import { adminPage, type AdminPageQuery } from '../readback/list-page';
import { pageSubscriptionsUnscoped } from '../storage/pages';
import { recordSubscriptionEvent } from './effects';
import {
  advanceSubscriptionClock,
  findSubscriptionByIdUnscoped,
  setCustomerClockOffset,
  updateSubscription,
  type SubscriptionRow,
} from '../storage/subscriptions';
import { advanceClockUpdate, cancelSubscriptionUpdate, type AuditActor } from '../../workflows/contract';
import { recordAudit } from '../identity/audit';
import { MAX_CLOCK_ADVANCE_SECONDS, type AdvanceClockBody, type CancelBody, type CustomerClockBody, type PaymentMethodBody } from './schemas';
import { ensureSubscriptionWorkflow, SubscriptionEndedError, updateSubscriptionWorkflow } from './workflows';

export type SubscriptionDeps = Pick<AppDeps, 'db' | 'temporal' | 'config'>;

/** The subscription as the admin API shows it: the webhook shape plus who owns it and its test clock. */
export function presentAdminSubscription(row: SubscriptionRow, merchant: Pick<MerchantRow, 'environment'>) {
  return {
    ...presentSubscription(row),
    merchant_id: row.merchant_id,
    customer_id: row.customer_id,
    checkout_id: row.checkout_id,
    payment_method_id: row.payment_method_id,
    created_at: row.created_at.toISOString(),
    test_clock: merchant.environment === 'sandbox' ? { now: subscriptionNow(row.clock_offset_ms).toISOString(), offset_seconds: Math.floor(row.clock_offset_ms / 1000) } : null,
  };
}

function presentSubscriptionCharge(charge: ChargeRow) {
  return {
    id: charge.id,
    period: charge.subscription_period,
    status: charge.status,
    amount_cents: charge.amount_cents,
    failure_code: charge.failure_code,
    created_at: charge.created_at.toISOString(),
  };
}

async function load(deps: SubscriptionDeps, id: string): Promise<{ sub: SubscriptionRow; merchant: MerchantRow }> {
  const sub = await findSubscriptionByIdUnscoped(deps.db, id);
  if (!sub) throw new AdminNotFoundError('Subscription not found.', `No subscription ${id}.`);
  return { sub, merchant: (await findMerchant(deps.db, sub.merchant_id))! };
}

/** A page of subscriptions across merchants, newest first. */
export function listAdminSubscriptions(deps: SubscriptionDeps, query: AdminPageQuery & Parameters<typeof pageSubscriptionsUnscoped>[1]) {
  return adminPage((page) => pageSubscriptionsUnscoped(deps.db, query, page), query, async (rows) => {
    const environments = new Map<string, MerchantRow>();
    for (const row of rows) {
      if (!environments.has(row.merchant_id)) environments.set(row.merchant_id, (await findMerchant(deps.db, row.merchant_id))!);
    }
    return rows.map((row) => presentAdminSubscription(row, environments.get(row.merchant_id)!));
  });
}

/** One subscription with every charge it made (its first charge is period 0). */
export async function getAdminSubscription(deps: SubscriptionDeps, id: string) {
  // One snapshot, so the period shown and the charges listed always agree while renewals commit.
  return deps.db.transaction(
    async (trx) => {
      const { sub, merchant } = await load({ ...deps, db: trx }, id);
      const charges = await listSubscriptionCharges(trx, sub.id);
      return { ...presentAdminSubscription(sub, merchant), charges: charges.map(presentSubscriptionCharge) };
    },
    { isolationLevel: 'repeatable read' },
  );
}

function alreadyCancelled(id: string): ValidationError {
  return new ValidationError('Subscription already cancelled.', `Subscription ${id} is cancelled and never charges again.`);
}

/**
 * Cancels now or at period end through the subscription's workflow, which runs the cancellation
 * between renewals: once this answers, no further charge is made (at period end: none after it).
 */
export async function cancelAdminSubscription(deps: SubscriptionDeps, id: string, body: CancelBody, actor: AuditActor) {
  const { sub, merchant } = await load(deps, id);
  if (sub.status === 'cancelled') throw alreadyCancelled(id);
  await ensureSubscriptionWorkflow(deps, sub);
  await sendUpdate(deps, id, (handle) => handle.executeUpdate(cancelSubscriptionUpdate, { args: [{ atPeriodEnd: body.at_period_end ?? false, audit: { actor } }] }));
  return presentAdminSubscription((await findSubscriptionByIdUnscoped(deps.db, id))!, merchant);
}

/**
 * Sandbox only: moves the subscription's test clock forward. The new time is recorded first, then
 * handed to the workflow, which charges whatever fell due; the answer comes at once and renewals
 * run behind it (read the subscription to follow them).
 */
export async function advanceTestClock(deps: SubscriptionDeps, id: string, body: AdvanceClockBody) {
  const { sub, merchant } = await load(deps, id);
  assertSandbox(merchant);
  if (sub.status === 'cancelled') throw alreadyCancelled(id);
  const realNow = Date.now();
  const clockNow = subscriptionNow(sub.clock_offset_ms, realNow).getTime();
  const target = body.to !== undefined ? Date.parse(body.to) : clockNow + body.seconds! * 1000;
  if (target <= clockNow) {
    throw new ValidationError('A test clock only moves forward.', `The subscription's clock reads ${new Date(clockNow).toISOString()}; give a later time.`);
  }
  if (target - clockNow > MAX_CLOCK_ADVANCE_SECONDS * 1000) throw new ValidationError('Too far ahead.', 'Advance a test clock by at most ten years at a time.');
  const row = await advanceSubscriptionClock(deps.db, sub.id, target - realNow);
  await ensureSubscriptionWorkflow(deps, row);
  await sendUpdate(deps, id, (handle) => handle.executeUpdate(advanceClockUpdate, { args: [{ clockOffsetMs: row.clock_offset_ms }] }));
  return presentAdminSubscription(row, merchant);
}

/** Sandbox only: where the clock of the customer's future subscriptions starts (as a Stripe test clock). */
export async function setCustomerTestClock(deps: SubscriptionDeps, customerId: string, body: CustomerClockBody) {
  const customer = await findCustomerByIdUnscoped(deps.db, customerId);
  if (!customer) throw new AdminNotFoundError('Customer not found.', `No customer ${customerId}.`);
  assertSandbox((await findMerchant(deps.db, customer.merchant_id))!);
  const offsetMs = Date.parse(body.now) - Date.now();
  await setCustomerClockOffset(deps.db, customer.merchant_id, customer.id, offsetMs);
  return { customer_id: customer.id, now: body.now, offset_seconds: Math.floor(offsetMs / 1000) };
}

/** The workflow refuses once the subscription ended (cancelled meanwhile, e.g. by dunning): a 422, not a 500. */
async function sendUpdate<T>(deps: SubscriptionDeps, id: string, send: Parameters<typeof updateSubscriptionWorkflow<T>>[2]): Promise<T> {
  try {
    return await withinReach(deps.temporal, Date.now() + TEMPORAL_REACH_MS, () => updateSubscriptionWorkflow(deps, id, send));
  } catch (error) {
    if (error instanceof SubscriptionEndedError) throw alreadyCancelled(id);
    throw error;
  }
}

/**
 * Renewals from now on charge another saved method of the same customer (the customer gave a new
 * card): a past_due subscription's next retry uses it. A renewal already at the processor keeps
 * the method it started with; the change and its subscription.updated event commit together.
 */
export async function changePaymentMethod(deps: SubscriptionDeps & Pick<AppDeps, 'logger'>, id: string, body: PaymentMethodBody, actor: AuditActor) {
  const { row, merchant, eventIds } = await deps.db.transaction(async (trx) => {
    const sub = await findSubscriptionByIdUnscoped(trx, id, true);
    if (!sub) throw new AdminNotFoundError('Subscription not found.', `No subscription ${id}.`);
    if (sub.status === 'cancelled') throw alreadyCancelled(id);
    const method = await findPaymentMethod(trx, sub.merchant_id, body.payment_method_id);
    // Another customer's method, or one the customer did not save, is reported like a missing one.
    if (!method || method.customer_id !== sub.customer_id || !method.saved) {
      throw new ValidationError('Payment method not found.', `payment_method_id must name a saved payment method of customer ${sub.customer_id}.`);
    }
    const owner = (await findMerchant(trx, sub.merchant_id))!;
    const updated = await updateSubscription(trx, sub.id, { payment_method_id: method.id });
    await recordAudit(trx, { merchantId: sub.merchant_id, actor, action: 'subscription.payment_method_changed', target: sub.id, details: { from: sub.payment_method_id, to: method.id } });
    return { row: updated, merchant: owner, eventIds: await recordSubscriptionEvent(trx, owner, ['subscription.updated'], updated, null) };
  });
  await dispatchCommitted(deps, eventIds);
  return presentAdminSubscription(row, merchant);
}

function assertSandbox(merchant: MerchantRow): void {
  if (merchant.environment !== 'sandbox') {
    throw new ValidationError('Test clocks are for sandbox subscriptions only.', `Merchant ${merchant.id} is a production account: its subscriptions follow real time.`);
  }
}
