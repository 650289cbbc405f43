import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { newId } from '../src/domain/ids';
import { presentSubscription, subscriptionNow, type SubscriptionView } from '../src/domain/subscriptions';
import { commitWithEvents, type WithEvents } from './commit';
import { recordAudit } from '../src/identity/audit';
import type { DecisionAudit } from '../workflows/contract';
import { findChargeByIdUnscoped, findFirstChargeOfMethod, insertChargeOnce } from '../src/storage/charges';
import type { Db } from '../src/storage/db';
import { findMerchant } from '../src/storage/merchants';
import { findSubscriptionByIdUnscoped, updateSubscription, type SubscriptionRow } from '../src/storage/subscriptions';
import { recordSubscriptionEvent } from '../src/subscriptions/effects';
import { applyChargeMove } from '../src/charges/moves';
import { evaluateAdmission, renewalFailure, type AdmissionRefusal } from '../src/checkouts/admission';
import { restrictCustomer } from '../src/customers/restrictions';
import { findCustomer } from '../src/storage/customers';
import { latestKycRecord } from '../src/storage/kyc-records';
import type { MerchantRow } from '../src/storage/merchants';
import { findPaymentMethod } from '../src/storage/payment-methods';

/** What a subscription workflow run needs to wait for its next step. */
export interface SubscriptionPlan {
  subscriptionId: string;
  status: SubscriptionRow['status'];
  /** ISO time on the subscription's clock; null once nothing is due any more. */
  nextChargeAt: string | null;
  cancelAtPeriodEnd: boolean;
  clockOffsetMs: number;
  /** Sandbox: how long a bank or crypto renewal stays pending before it settles. */
  settlementMs: number;
}

export type RenewalStep = { kind: 'charge'; chargeId: string } | { kind: 'ended' } | { kind: 'not_due' };

/** The idempotency reference of a renewal charge: one charge per period and attempt, whatever retries. */
export function renewalAttemptKey(subscriptionId: string, period: number, attempt: number): string {
  return `${subscriptionId}:${period}:${attempt}`;
}

/**
 * The admission policy for a renewal, over the rows as they stand in the renewal's transaction.
 * The customer row is locked (shared), so a restriction committing meanwhile (restrictCustomer
 * locks it for update) is either seen here or comes after the renewal's charge was decided.
 */
async function renewalRefusal(trx: Db, merchant: MerchantRow, sub: SubscriptionRow): Promise<AdmissionRefusal | null> {
  // One after another: a transaction's queries share one connection.
  const customer = (await findCustomer(trx, merchant.id, sub.customer_id, true))!;
  const latestKyc = await latestKycRecord(trx, merchant.id, sub.customer_id);
  const paymentMethod = (await findPaymentMethod(trx, merchant.id, sub.payment_method_id))!;
  const decision = evaluateAdmission({
    entry: 'renewal',
    checkoutType: 'deposit',
    environment: merchant.environment,
    settings: merchant.settings,
    customer,
    latestKyc,
    geoMaxAgeMs: 0,
    paymentOptions: null,
    paymentMethod,
    destinationAllowed: true,
    amountCents: sub.amount_cents,
    reviewExists: false,
    now: new Date(),
  });
  return decision.admitted ? null : decision.refusal;
}

/** A subscription's renewals: its plan, each period's charge, its cancellation. */
export function createSubscriptionActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    async loadSubscriptionPlan(input: { subscriptionId: string }): Promise<SubscriptionPlan> {
      const sub = await load(db, input.subscriptionId);
      const merchant = (await findMerchant(db, sub.merchant_id))!;
      return {
        subscriptionId: sub.id,
        status: sub.status,
        nextChargeAt: sub.next_charge_at?.toISOString() ?? null,
        cancelAtPeriodEnd: sub.cancel_at_period_end,
        clockOffsetMs: sub.clock_offset_ms,
        settlementMs: merchant.environment === 'sandbox' ? merchant.settings.sandbox_settlement_seconds * 1000 : 0,
      };
    },

    /**
     * The renewal now due: ends a subscription cancelled at period end, or creates the period's
     * charge at `created` (a retried activity finds the same charge by its attempt key). A charge
     * the admission policy refuses (a restricted customer, KYC) fails in the same
     * commit with the refusal's failure_code, so it never reaches the processor and the
     * subscription is dunned as for any failed renewal.
     */
    async beginRenewal(input: { subscriptionId: string }): Promise<RenewalStep> {
      return commitWithEvents(deps, async (trx) => {
        const sub = await load(trx, input.subscriptionId, true);
        if (sub.status === 'cancelled' || sub.next_charge_at === null) return { result: { kind: 'ended' }, eventIds: [] };
        const now = subscriptionNow(sub.clock_offset_ms);
        if (now < sub.next_charge_at) return { result: { kind: 'not_due' }, eventIds: [] };
        if (sub.cancel_at_period_end) {
          const { eventIds } = await end(trx, sub, sub.next_charge_at);
          return { result: { kind: 'ended' }, eventIds };
        }
        return chargeRenewal(trx, sub);
      });
    },

    /** A merchant's cancellation, run by the workflow between renewals: now, or at the end of the period. */
    async cancelSubscription(input: { subscriptionId: string; atPeriodEnd: boolean; audit?: DecisionAudit }): Promise<SubscriptionView> {
      return commitWithEvents(deps, async (trx) => {
        const sub = await load(trx, input.subscriptionId, true);
        if (sub.status === 'cancelled') return { result: presentSubscription(sub), eventIds: [] };
        // The operator's cancellation names them in the merchant's audit log, committed with it (a no-op writes none).
        const audited = (action: 'subscription.cancelled' | 'subscription.cancel_scheduled') =>
          input.audit ? recordAudit(trx, { merchantId: sub.merchant_id, actor: input.audit.actor, action, target: sub.id }) : Promise.resolve();
        if (!input.atPeriodEnd) {
          const { row, eventIds } = await end(trx, sub, subscriptionNow(sub.clock_offset_ms));
          await audited('subscription.cancelled');
          return { result: presentSubscription(row), eventIds };
        }
        if (sub.cancel_at_period_end) return { result: presentSubscription(sub), eventIds: [] };
        await audited('subscription.cancel_scheduled');
        const row = await updateSubscription(trx, sub.id, { cancel_at_period_end: true });
        const merchant = (await findMerchant(trx, sub.merchant_id))!;
        return { result: presentSubscription(row), eventIds: await recordSubscriptionEvent(trx, merchant, ['subscription.updated'], row, null) };
      });
    },
  };
}

async function load(trx: Db, subscriptionId: string, lock = false): Promise<SubscriptionRow> {
  const sub = await findSubscriptionByIdUnscoped(trx, subscriptionId, lock);
  if (!sub) throw ApplicationFailure.nonRetryable(`subscription ${subscriptionId} does not exist`);
  return sub;
}

/** Ends the subscription (cancelled) in the caller's transaction and records subscription.cancelled. */
async function end(trx: Db, sub: SubscriptionRow, cancelledAt: Date) {
  const row = await updateSubscription(trx, sub.id, { status: 'cancelled', next_charge_at: null, cancelled_at: cancelledAt, cancellation_reason: 'requested' });
  const merchant = (await findMerchant(trx, sub.merchant_id))!;
  return { row, eventIds: await recordSubscriptionEvent(trx, merchant, ['subscription.cancelled'], row, null) };
}

/** The period's charge at `created`; failed in the same commit when the admission policy refuses it. */
async function chargeRenewal(trx: Db, sub: SubscriptionRow): Promise<WithEvents<RenewalStep>> {
  // The processor that tokenized the method charges it again, whatever the merchant's setting says now.
  const { processor } = (await findFirstChargeOfMethod(trx, sub.payment_method_id)) ?? (await findChargeByIdUnscoped(trx, sub.first_charge_id))!;
  const period = sub.period + 1;
  const charge = await insertChargeOnce(trx, {
    id: newId('charge'),
    merchant_id: sub.merchant_id,
    checkout_id: sub.checkout_id,
    customer_id: sub.customer_id,
    payment_method_id: sub.payment_method_id,
    attempt_key: renewalAttemptKey(sub.id, period, sub.failed_attempts + 1),
    amount_cents: sub.amount_cents,
    currency: sub.currency,
    transaction_type: 'credit',
    processor,
    subscription_id: sub.id,
    subscription_period: period,
  });
  const result: RenewalStep = { kind: 'charge', chargeId: charge.id };
  // A charge a retry finds already past `created` went its way under an earlier decision.
  if (charge.status !== 'created') return { result, eventIds: [] };
  const merchant = (await findMerchant(trx, sub.merchant_id))!;
  const refusal = await renewalRefusal(trx, merchant, sub);
  if (!refusal) return { result, eventIds: [] };
  const restricted = refusal.restrictWith ? await restrictCustomer(trx, merchant, { id: sub.customer_id }, refusal.restrictWith) : [];
  const moved = await applyChargeMove(trx, { chargeId: charge.id, from: 'created', to: 'failed', changes: renewalFailure(refusal) });
  return { result, eventIds: [...restricted, ...moved.eventIds] };
}
