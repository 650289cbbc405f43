import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { newId } from '../src/domain/ids';
import { checkoutEventData } from '../src/domain/event-catalog';
import { expireCheckout } from '../src/checkouts/expiry';
import { recordEvent } from '../src/events/record';
import { deliverAfterCommit } from '../src/events/first-delivery';
import { SANDBOX_AUTO_REFUND_AMOUNT_CENTS } from '../src/processors';
import { findMerchant, type MerchantRow } from '../src/storage/merchants';
import type { Db } from '../src/storage/db';
import { findCustomer } from '../src/storage/customers';
import { evaluateAdmission, reviewRequired, type BlockReason } from '../src/checkouts/admission';
import { restrictCustomer } from '../src/customers/restrictions';
import { latestKycRecord } from '../src/storage/kyc-records';
import { GEO_CHECK_MAX_AGE_MS, latestGeoCheck } from '../src/storage/geo-checks';
import { FAILURE_TYPES, type ReviewDecision, type ReviewSnapshot } from '../workflows/contract';
import { decideReview, findCheckoutReview, insertReview, presentReview } from '../src/storage/reviews';
import { isCardLike } from '../src/processors';
import { findCheckoutByIdUnscoped, pauseCheckoutForReview, updateCheckoutState, type CheckoutRow } from '../src/storage/checkouts';
import { findPaymentMethod, type PaymentMethodRow } from '../src/storage/payment-methods';
import { insertAttemptCharge } from './attempt-charge';
import { withdrawalDestinationAllowed } from '../src/wallet/withdrawal-destination';
import { REVIEW_SPENT_MESSAGE, approvalRefusal } from '../src/checkouts/review-rule';
import type { ReviewRow } from '../src/storage/reviews';
import { recordBlockEvidence, recordReviewEvidence } from '../src/decisions/evidence';

/**
 * The least time an approval leaves before the checkout's deadline: the approved charge is created
 * right after it, by the database's clock, so an approval always gets its charge.
 */
const APPROVED_CHARGE_MIN_MS = 3_000;

/** What the workflow needs to run one attempt, read from the database and the merchant's settings. */
export interface AttemptPlan {
  /** Set when a geo or KYC gate blocks the checkout; no charge may be made. */
  block: { reason: BlockReason; restrictWith?: string } | null;
  needsReview: boolean;
  settlementMs: number;
  holdMs: number;
  /** Sandbox only: a 1.08 USD card deposit is refunded after it succeeds. */
  autoRefund: boolean;
}


async function loadCheckout(db: Db, checkoutId: string) {
  const checkout = await findCheckoutByIdUnscoped(db, checkoutId);
  if (!checkout) return null;
  const merchant = (await findMerchant(db, checkout.merchant_id))!;
  return { checkout, merchant };
}

/** The rows the customer gates read: the customer, its latest KYC record and geo check. */
export async function loadGateRows(db: Db, merchantId: string, customerId: string) {
  const [customer, latestKyc, latest] = await Promise.all([
    findCustomer(db, merchantId, customerId),
    latestKycRecord(db, merchantId, customerId),
    latestGeoCheck(db, merchantId, customerId),
  ]);
  return { customer: customer!, latestKyc, latestGeoCheck: latest };
}
export type GateRows = Awaited<ReturnType<typeof loadGateRows>>;

/**
 * What one attempt needs, from rows the caller already loaded: the admission policy for a wallet
 * attempt (src/checkouts/admission.ts: restriction, KYC, geo, method, destination, expiry, the
 * review threshold and the one-review rule, so an approval can never be reused by a later
 * attempt of another amount or method), and the sandbox's timings. A gate about the customer
 * blocks the checkout; any other refusal refuses this attempt only.
 */
export async function planFor(
  db: Db,
  input: { checkout: CheckoutRow; merchant: MerchantRow; gateRows: GateRows; pm: PaymentMethodRow; amountCents: number },
): Promise<AttemptPlan> {
  const { checkout, merchant, pm } = input;
  const needsReview = reviewRequired(merchant.settings, checkout.type, input.amountCents);
  const decision = evaluateAdmission({
    entry: 'wallet_attempt',
    checkoutType: checkout.type,
    environment: merchant.environment,
    settings: merchant.settings,
    ...input.gateRows,
    geoMaxAgeMs: GEO_CHECK_MAX_AGE_MS,
    paymentOptions: checkout.payment_options,
    paymentMethod: pm,
    destinationAllowed: await withdrawalDestinationAllowed(db, merchant, checkout, pm),
    amountCents: input.amountCents,
    reviewExists: needsReview && (await findCheckoutReview(db, checkout.id)) !== undefined,
    now: new Date(),
  });
  const timings = attemptTimings({ ...input, paymentType: pm.payment_type });
  if (decision.admitted) return { block: null, needsReview: decision.needsReview, ...timings };
  const { refusal } = decision;
  if (refusal.blocksCheckout) {
    // Only the customer gates block, and each answers a BlockReason.
    const block = { reason: refusal.reason as BlockReason, ...(refusal.restrictWith ? { restrictWith: refusal.restrictWith } : {}) };
    return { block, needsReview: false, ...timings };
  }
  if (refusal.reason === 'review_spent') throw ApplicationFailure.nonRetryable(REVIEW_SPENT_MESSAGE, FAILURE_TYPES.reviewSpent);
  throw ApplicationFailure.nonRetryable(`the admission policy refused the attempt (${refusal.reason})`, FAILURE_TYPES.admissionRefused);
}

/** The sandbox's timings and auto-refund of an attempt: what its plan says besides the gates and the review rule. */
export function attemptTimings(input: { checkout: CheckoutRow; merchant: MerchantRow; paymentType: string | undefined; amountCents: number }): Omit<AttemptPlan, 'block' | 'needsReview'> {
  const s = input.merchant.settings;
  const sandbox = input.merchant.environment === 'sandbox';
  return {
    settlementMs: sandbox ? s.sandbox_settlement_seconds * 1000 : 0,
    holdMs: sandbox ? s.sandbox_hold_seconds * 1000 : 0,
    autoRefund: sandbox && input.checkout.type === 'deposit' && input.amountCents === SANDBOX_AUTO_REFUND_AMOUNT_CENTS && isCardLike(input.paymentType),
  };
}

/**
 * The re-checks of an approval (approvalRefusal) on the rows as they stand, inside the decision's
 * transaction. The customer row is locked (shared) so that a restriction committing meanwhile
 * (restrictCustomer locks it for update) is either seen here or comes after the approval.
 */
async function checkApproval(trx: Db, merchant: MerchantRow, checkout: CheckoutRow, review: ReviewRow): Promise<{ refusal: string | null; paymentMethod: PaymentMethodRow }> {
  // One after another: a transaction's queries share one connection.
  const customer = await findCustomer(trx, merchant.id, checkout.customer_id, true);
  const latestKyc = await latestKycRecord(trx, merchant.id, checkout.customer_id);
  const paymentMethod = (await findPaymentMethod(trx, merchant.id, review.payment_method_id))!;
  const destinationAllowed = await withdrawalDestinationAllowed(trx, merchant, checkout, paymentMethod);
  const refusal = approvalRefusal({
    checkoutType: checkout.type,
    environment: merchant.environment,
    settings: merchant.settings,
    paymentOptions: checkout.payment_options,
    customer: customer!,
    ...(latestKyc ? { latestKyc } : {}),
    paymentMethod,
    destinationAllowed,
    now: new Date(),
  });
  return { refusal, paymentMethod };
}

export function createCheckoutActivities(deps: ActivityDeps) {
  const { db } = deps;

  /** Records an event for the checkout in its own transaction with `change`, then dispatches it. */
  async function withEvents(work: (trx: Db) => Promise<string[]>): Promise<void> {
    const ids = await db.transaction(work);
    deliverAfterCommit(deps, ids);
  }

  return {
    async planAttempt(input: { checkoutId: string; paymentMethodId: string; amountCents: number }): Promise<AttemptPlan> {
      const loaded = await loadCheckout(db, input.checkoutId);
      if (!loaded) throw ApplicationFailure.nonRetryable('checkout not recorded', FAILURE_TYPES.checkoutNotOpen);
      const [pm, gateRows] = await Promise.all([
        findPaymentMethod(db, loaded.merchant.id, input.paymentMethodId),
        loadGateRows(db, loaded.merchant.id, loaded.checkout.customer_id),
      ]);
      if (!pm) throw ApplicationFailure.nonRetryable('payment method not found');
      return planFor(db, { ...loaded, gateRows, pm, amountCents: input.amountCents });
    },

    /** Expires an unfinished checkout when its timer fires (src/checkouts/expiry.ts); false if it was no longer open. */
    async expireCheckout(input: { checkoutId: string }): Promise<boolean> {
      return expireCheckout(deps, input.checkoutId);
    },

    /**
     * Blocks the checkout for good: state blocked, checkout.terminally_failed (when enabled) and,
     * for a KYC name mismatch, the customer's restriction (customer.restricted), in one commit.
     */
    async blockCheckout(input: { checkoutId: string; reason: BlockReason; restrictWith?: string }): Promise<void> {
      const { checkout, merchant } = (await loadCheckout(db, input.checkoutId))!;
      await withEvents(async (trx) => {
        const row = await updateCheckoutState(trx, checkout.id, ['open'], 'blocked', { blocked_reason: input.reason });
        if (!row) {
          // A retry finds its own block done. Expired meanwhile (its timer, or the sweep of late
          // timers): nothing is blocked, and the attempt is refused.
          if ((await findCheckoutByIdUnscoped(trx, checkout.id))?.state === 'blocked') return [];
          throw ApplicationFailure.nonRetryable('the checkout closed before it could be blocked', FAILURE_TYPES.checkoutClosed);
        }
        await recordBlockEvidence(trx, merchant, row, input.reason);
        const ids = input.restrictWith ? await restrictCustomer(trx, merchant, { id: checkout.customer_id }, input.restrictWith) : [];
        const data = checkoutEventData({ checkout: row, customerId: row.customer_id, reason: input.reason });
        const event = await recordEvent(trx, merchant, 'checkout.terminally_failed', data, { checkoutId: row.id, customerId: row.customer_id });
        return event.enabled ? [...ids, event.id] : ids;
      });
    },

    /** Pauses a withdrawal for review: the review row, the checkout in_review, checkout.review.created. */
    async createReview(input: { checkoutId: string; attemptKey: string; paymentMethodId: string; amountCents: number }): Promise<ReviewSnapshot> {
      const loaded = await loadCheckout(db, input.checkoutId);
      if (!loaded) throw ApplicationFailure.nonRetryable('checkout not recorded', FAILURE_TYPES.checkoutNotOpen);
      const { checkout, merchant } = loaded;
      let review: ReviewSnapshot | undefined;
      await withEvents(async (trx) => {
        // One review per checkout (unique checkout_id): a retried activity finds the one it made.
        const existing = await findCheckoutReview(trx, checkout.id);
        if (existing) {
          review = presentReview(existing);
          return [];
        }
        const row = await insertReview(trx, {
          id: newId('review'),
          merchant_id: merchant.id,
          checkout_id: checkout.id,
          customer_id: checkout.customer_id,
          payment_method_id: input.paymentMethodId,
          amount_cents: input.amountCents,
          attempt_key: input.attemptKey,
        });
        review = presentReview(row);
        await recordReviewEvidence(trx, merchant, row);
        // Expiry pauses while a person decides (a review has no timeout): keep the time left. An
        // attempt whose checkout expired meanwhile (its timer, the sweep of late timers, or only its
        // deadline by the database's clock) takes no review: the review row and its evidence roll
        // back with this refusal.
        const paused = await pauseCheckoutForReview(trx, checkout.id);
        if (!paused) throw ApplicationFailure.nonRetryable('the checkout closed before its review could start', FAILURE_TYPES.checkoutClosed);
        // expires_at null: the checkout's expiry is paused while the review is pending.
        const data = checkoutEventData({ checkout, customerId: checkout.customer_id, review: { id: row.id, status: row.status, amount_cents: row.amount_cents }, expiresAt: null });
        const event = await recordEvent(trx, merchant, 'checkout.review.created', data, { checkoutId: checkout.id, customerId: checkout.customer_id });
        return event.enabled ? [event.id] : [];
      });
      return review!;
    },

    /**
     * Records the reviewer's decision. Approval reopens the checkout for the charge and hold;
     * decline blocks it for good (checkout.review.declined and checkout.terminally_failed, when enabled).
     */
    async recordReviewDecision(input: { checkoutId: string; decision: ReviewDecision; decidedBy?: string }): Promise<ReviewSnapshot & { checkoutExpiresAt?: string }> {
      const loaded = (await loadCheckout(db, input.checkoutId))!;
      const { checkout, merchant } = loaded;
      let review: ReviewSnapshot | undefined;
      let expiresAt: Date | undefined;
      await withEvents(async (trx) => {
        const current = (await findCheckoutReview(trx, checkout.id, true))!;
        if (current.status !== 'pending') {
          // A retry after this activity's own decision committed (its answer lost): the deadline
          // the approval resumed is on the checkout, read after that commit. Without it the
          // workflow kept the deadline from before the review and could expire the checkout early.
          review = presentReview(current);
          if (current.status === 'approved' && checkout.state === 'open') expiresAt = checkout.expires_at;
          return [];
        }
        const approved = input.decision === 'approved';
        const check = approved ? await checkApproval(trx, merchant, checkout, current) : undefined;
        // Refused, nothing is written: the review stays pending for another decision.
        if (check?.refusal) throw ApplicationFailure.nonRetryable(check.refusal, FAILURE_TYPES.approvalRefused);
        const row = await decideReview(trx, current.id, input.decision, input.decidedBy);
        // Expiry resumes with the time that was left when the review started, and at least the
        // time the approved charge needs to be created: a review started milliseconds before the
        // deadline would otherwise be approved with no charge possible. By the database's clock,
        // the one the charge's insert checks the deadline against (a worker's may be behind it).
        const resumesWithMs = Math.max(checkout.expiry_remaining_ms ?? 0, APPROVED_CHARGE_MIN_MS);
        const resumed = await updateCheckoutState(trx, checkout.id, ['in_review'], approved ? 'open' : 'blocked', {
          blocked_reason: approved ? null : 'review_declined',
          ...(approved ? { expiresInMs: resumesWithMs } : {}),
          expiry_remaining_ms: null,
        });
        expiresAt = resumed?.expires_at;
        if (check && resumed && current.attempt_key) {
          // The approved charge is created in this commit, as the workflow's createCharge would (same
          // attempt key, so that call finds it): a worker that stops or lags after the approval comes
          // back to a charge in progress, which neither the deadline's sweep nor the insert's deadline
          // check can take away. Reviews from before attempt keys leave it to the workflow.
          await insertAttemptCharge(trx, { checkout: resumed, merchant, pm: check.paymentMethod }, { attemptKey: current.attempt_key, amountCents: current.amount_cents, reviewId: current.id });
        }
        review = presentReview(row);
        const reviewData = checkoutEventData({
          checkout,
          customerId: checkout.customer_id,
          review: { id: row.id, status: row.status, amount_cents: row.amount_cents },
          expiresAt: approved ? (expiresAt ?? null) : null,
        });
        const refs = { checkoutId: checkout.id, customerId: checkout.customer_id };
        const events = [await recordEvent(trx, merchant, approved ? 'checkout.review.approved' : 'checkout.review.declined', reviewData, refs)];
        if (!approved) {
          const failedData = checkoutEventData({ checkout, customerId: checkout.customer_id, reason: 'review_declined' });
          events.push(await recordEvent(trx, merchant, 'checkout.terminally_failed', failedData, refs));
        }
        return events.filter((e) => e.enabled).map((e) => e.id);
      });
      return { ...review!, ...(expiresAt ? { checkoutExpiresAt: expiresAt.toISOString() } : {}) };
    },
  };
}
