import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { insertAttemptCharge } from './attempt-charge';
import { loadCheckout } from './checkouts';
import { commitWithEvents, type WithEvents } from './commit';
import { claimForRequest } from './request-fence';
import { approvalRefusal } from '../src/checkouts/review-rule';
import { recordReviewEvidence } from '../src/decisions/evidence';
import { checkoutEventData } from '../src/domain/event-catalog';
import { newId } from '../src/domain/ids';
import { recordEvent } from '../src/events/record';
import { pauseCheckoutForReview, updateCheckoutState, type CheckoutRow } from '../src/storage/checkouts';
import { findCustomer } from '../src/storage/customers';
import type { Db } from '../src/storage/db';
import { latestKycRecord } from '../src/storage/kyc-records';
import type { MerchantRow } from '../src/storage/merchants';
import { findPaymentMethod, type PaymentMethodRow } from '../src/storage/payment-methods';
import { decideReview, findCheckoutReview, insertReview, type ReviewRow } from '../src/storage/reviews';
import { recordAudit } from '../src/identity/audit';
import { presentReview } from '../src/reviews/present';
import { withdrawalDestinationAllowed } from '../src/wallet/withdrawal-destination';
import { FAILURE_TYPES, type DecisionAudit, type ReviewDecision, type ReviewSnapshot } from '../workflows/contract';

/**
 * The least time an approval leaves before the checkout's deadline: the approved charge is created
 * right after it, by the database's clock, so an approval always gets its charge.
 */
const APPROVED_CHARGE_MIN_MS = 3_000;

type Loaded = { checkout: CheckoutRow; merchant: MerchantRow };
type ReviewRequest = { checkoutId: string; attemptKey: string; paymentMethodId: string; amountCents: number };
/** `fenceId`: the deciding request's fence (absent for decisions sent before fences). */
type DecisionRequest = { checkoutId: string; decision: ReviewDecision; decidedBy?: string; audit?: DecisionAudit; fenceId?: string };

/** A withdrawal's review: opened by its attempt, decided by a reviewer. */
export function createReviewActivities(deps: ActivityDeps) {
  return {
    /** Pauses a withdrawal for review: the review row, the checkout in_review, checkout.review.created. */
    async createReview(input: ReviewRequest): Promise<ReviewSnapshot> {
      const loaded = await loadCheckout(deps.db, input.checkoutId);
      if (!loaded) throw ApplicationFailure.nonRetryable('checkout not recorded', FAILURE_TYPES.checkoutNotOpen);
      return commitWithEvents(deps, (trx) => openReview(trx, loaded, input));
    },

    /**
     * Records the reviewer's decision. Approval reopens the checkout for the charge and hold;
     * decline blocks it for good (checkout.review.declined and checkout.terminally_failed, when enabled).
     */
    async recordReviewDecision(input: DecisionRequest): Promise<ReviewSnapshot & { checkoutExpiresAt?: string }> {
      const loaded = (await loadCheckout(deps.db, input.checkoutId))!;
      const { review, expiresAt } = await commitWithEvents(deps, (trx) => decide(trx, loaded, input));
      return { ...review, ...(expiresAt ? { checkoutExpiresAt: expiresAt.toISOString() } : {}) };
    },
  };
}

async function openReview(trx: Db, { checkout, merchant }: Loaded, input: ReviewRequest): Promise<WithEvents<ReviewSnapshot>> {
  // One review per checkout (unique checkout_id): a retried activity finds the one it made.
  const existing = await findCheckoutReview(trx, checkout.id);
  if (existing) return { result: presentReview(existing), eventIds: [] };
  const row = await insertReview(trx, {
    id: newId('review'),
    merchant_id: merchant.id,
    checkout_id: checkout.id,
    customer_id: checkout.customer_id,
    payment_method_id: input.paymentMethodId,
    amount_cents: input.amountCents,
    attempt_key: input.attemptKey,
  });
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
  return { result: presentReview(row), eventIds: event.enabled ? [event.id] : [] };
}

type Decided = { review: ReviewSnapshot; expiresAt?: Date };

async function decide(trx: Db, { checkout, merchant }: Loaded, input: DecisionRequest): Promise<WithEvents<Decided>> {
  const current = (await findCheckoutReview(trx, checkout.id, true))!;
  // A request that answered 503 before this decision got here is not decided behind its back.
  await claimForRequest(trx, input.fenceId);
  if (current.status !== 'pending') {
    // A retry after this activity's own decision committed (its answer lost): the deadline
    // the approval resumed is on the checkout, read after that commit. Without it the
    // workflow kept the deadline from before the review and could expire the checkout early.
    const expiresAt = current.status === 'approved' && checkout.state === 'open' ? checkout.expires_at : undefined;
    return { result: { review: presentReview(current), expiresAt }, eventIds: [] };
  }
  const approved = input.decision === 'approved';
  const check = approved ? await checkApproval(trx, merchant, checkout, current) : undefined;
  // Refused, nothing is written: the review stays pending for another decision.
  if (check?.refusal) throw ApplicationFailure.nonRetryable(check.refusal, FAILURE_TYPES.approvalRefused);
  const row = await decideReview(trx, current.id, input.decision, input.decidedBy);
  if (input.audit) await recordDecisionAudit(trx, row, input.audit);
  const resumed = await resumeCheckout(trx, checkout, approved);
  if (check && resumed && current.attempt_key) {
    // The approved charge is created in this commit, as the workflow's createCharge would (same
    // attempt key, so that call finds it): a worker that stops or lags after the approval comes
    // back to a charge in progress, which neither the deadline's sweep nor the insert's deadline
    // check can take away. Reviews from before attempt keys leave it to the workflow.
    await insertAttemptCharge(trx, { checkout: resumed, merchant, pm: check.paymentMethod }, { attemptKey: current.attempt_key, amountCents: current.amount_cents, reviewId: current.id });
  }
  const expiresAt = resumed?.expires_at;
  const eventIds = await recordDecisionEvents(trx, { checkout, merchant }, row, approved ? (expiresAt ?? null) : null);
  return { result: { review: presentReview(row), expiresAt }, eventIds };
}

/** The decision's audit row commits with the decision (a refused one writes neither). */
function recordDecisionAudit(trx: Db, row: ReviewRow, audit: DecisionAudit) {
  return recordAudit(trx, {
    merchantId: row.merchant_id,
    actor: audit.actor,
    action: row.status === 'approved' ? 'review.approved' : 'review.declined',
    target: row.id,
    details: { checkout_id: row.checkout_id, amount_cents: row.amount_cents },
  });
}

/**
 * The checkout after its review: open again, or blocked. Expiry resumes with the time that was
 * left when the review started, and at least the time the approved charge needs to be created: a
 * review started milliseconds before the deadline would otherwise be approved with no charge
 * possible. By the database's clock, the one the charge's insert checks the deadline against (a
 * worker's may be behind it).
 */
function resumeCheckout(trx: Db, checkout: CheckoutRow, approved: boolean) {
  const resumesWithMs = Math.max(checkout.expiry_remaining_ms ?? 0, APPROVED_CHARGE_MIN_MS);
  return updateCheckoutState(trx, checkout.id, ['in_review'], approved ? 'open' : 'blocked', {
    blocked_reason: approved ? null : 'review_declined',
    ...(approved ? { expiresInMs: resumesWithMs } : {}),
    expiry_remaining_ms: null,
  });
}

/** checkout.review.approved, or checkout.review.declined and checkout.terminally_failed: the enabled ones' ids. */
async function recordDecisionEvents(trx: Db, { checkout, merchant }: Loaded, row: ReviewRow, expiresAt: Date | null): Promise<string[]> {
  const approved = row.status === 'approved';
  const review = { id: row.id, status: row.status, amount_cents: row.amount_cents };
  const refs = { checkoutId: checkout.id, customerId: checkout.customer_id };
  const reviewData = checkoutEventData({ checkout, customerId: checkout.customer_id, review, expiresAt });
  const events = [await recordEvent(trx, merchant, approved ? 'checkout.review.approved' : 'checkout.review.declined', reviewData, refs)];
  if (!approved) {
    const failedData = checkoutEventData({ checkout, customerId: checkout.customer_id, reason: 'review_declined' });
    events.push(await recordEvent(trx, merchant, 'checkout.terminally_failed', failedData, refs));
  }
  return events.filter((e) => e.enabled).map((e) => e.id);
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
