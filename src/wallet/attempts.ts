import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../app-deps';
import { presentCharge, type PresentedCharge } from '../charges/present';
import type { NextAction } from '../processors';
import { presentLoaded } from '../charges/load';
import { findCustomer } from '../storage/customers';
import { REVIEW_SPENT_MESSAGE, reviewSpentHint } from '../checkouts/review-rule';
import { reviewRequired } from '../checkouts/admission';
import { RateLimitedError, ServiceUnavailableError, ValidationError } from '../http/errors';
import { logAttempt } from '../storage/attempt-log';
import { outcomeWithinReach, sendOnceCaughtUp } from '../temporal/updates';
import { reachUntil, temporalAnswers, TEMPORAL_REACH_MS, unreachable, withinReach } from '../temporal/deadlines';
import { checkoutWorkflowStart } from '../temporal/checkouts';
import { findChargeByAttemptKeyUnscoped, findChargeByIdUnscoped } from '../storage/charges';
import { admitAttempt, releaseAttemptSlot, type AdmissionRefusal, type CheckoutRow } from '../storage/checkouts';
import type { MerchantRow } from '../storage/merchants';
import { findCheckoutReview, findReviewUnscoped, type ReviewRow } from '../storage/reviews';
import { deleteUnusedPaymentMethod, findPaymentMethod } from '../storage/payment-methods';
import { FAILURE_TYPES, checkoutWorkflowId, failureType, submitAttemptUpdate, type AttemptInput, type AttemptResult } from '../../workflows/contract';
import type { AttemptBody } from './attempt-schemas';
import { attemptAmount, checkPaymentMethod, storePaymentMethod, type CheckedPaymentMethod } from './attempt-rules';
import { assertWithdrawalDestination } from './withdrawal-destination';
import { merchantOfCheckout, type SecretCheckout } from './service';

const NEW_CHECKOUT = 'Ask the merchant for a new checkout.';

const STATE_MESSAGES: Record<Exclude<CheckoutRow['state'], 'open'>, string> = {
  in_review: 'This checkout is in review and takes no new attempt.',
  completed: 'This checkout is already completed.',
  expired: 'This checkout has expired.',
  blocked: 'This checkout is blocked and cannot continue.',
};

function refusedState(checkout: CheckoutRow): ValidationError | null {
  if (checkout.state !== 'open') return new ValidationError(STATE_MESSAGES[checkout.state], NEW_CHECKOUT);
  if (checkout.expires_at.getTime() <= Date.now()) return new ValidationError(STATE_MESSAGES.expired, NEW_CHECKOUT);
  return null;
}

function attemptLimitError(checkout: Pick<CheckoutRow, 'max_attempts'>): ValidationError {
  return new ValidationError('This checkout has reached its limit of payment attempts.', `A checkout takes at most ${checkout.max_attempts} attempts. ${NEW_CHECKOUT}`);
}

const IN_FLIGHT = () => new ValidationError('Another payment attempt is still in progress.', 'Wait for its result before trying again.');

/** Why the admission compare-and-set refused the attempt, as the wallet's 422. */
function admissionError(refusal: AdmissionRefusal, checkout: CheckoutRow): ValidationError {
  switch (refusal) {
    case 'expired':
      return new ValidationError(STATE_MESSAGES.expired, NEW_CHECKOUT);
    case 'attempt_limit':
      return attemptLimitError(checkout);
    case 'attempt_in_flight':
      return IN_FLIGHT();
    default:
      return new ValidationError('This checkout takes no new attempt.', 'It may be completed, expired, blocked or in review.');
  }
}

/** What an attempt came with besides its body: the attempt id its Idempotency-Key names, and the client's address. */
export interface AttemptContext {
  keyedAttemptId: string | undefined;
  clientIp: string | null;
}

/** An attempt's answer: the charge it made (201), or the review the withdrawal paused for (202). */
export type AttemptAnswer = { kind: 'charge'; charge: PresentedCharge & { next_action?: NextAction } } | { kind: 'review'; review: AttemptReview };

/**
 * One payment attempt from the hosted wallet. In order: the request and the checkout's state
 * are checked, the one-review rule and the velocity limits are applied, the attempt is admitted
 * (one at a time per checkout, within the attempt limit), and only then are new details tokenized
 * and stored (no card number reaches Temporal) and the attempt handed to the checkout's workflow
 * as an update.
 */
export async function submitAttempt(deps: AppDeps, found: SecretCheckout, body: AttemptBody, context: AttemptContext): Promise<AttemptAnswer> {
  const { db } = deps;
  const { checkout } = found;
  // The attempt id (the charge's attempt key) comes from the Idempotency-Key: the same request sent
  // again makes at most the one charge. Within one request, a retry after a transient refusal
  // reaches the same update (its update id is the request's own).
  const { keyedAttemptId } = context;
  if (keyedAttemptId) {
    const earlier = await answeredEarlier(deps, checkout, keyedAttemptId);
    if (earlier) return earlier;
  }
  const stateError = refusedState(checkout);
  if (stateError) throw stateError;
  // Each row once per attempt. The customer is only shown in the answer: read while the attempt runs.
  const customerRead = findCustomer(db, checkout.merchant_id, checkout.customer_id);
  customerRead.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  // From the credential cache when it holds the version the checkout's lookup read: no round trip.
  const merchant = await merchantOfCheckout(db, found);
  const amountCents = attemptAmount(checkout, body.amount_cents);
  await assertReviewAvailable(deps, merchant, checkout, amountCents);
  const method = await checkPaymentMethod(deps, merchant, checkout, body);
  await assertWithdrawalDestination(db, merchant, checkout, method);

  const attemptId = keyedAttemptId ?? randomUUID();
  const refusal = await logAndAdmit(deps, merchant, checkout, attemptId, method, context.clientIp);
  if (refusal) throw admissionError(refusal, checkout);
  let result;
  let stored: Awaited<ReturnType<typeof storePaymentMethod>> | undefined;
  const requestUpdateId = randomUUID();
  // Freed once: a request that gives up frees the slot before it looks for a charge (finishBegunAttempt).
  let slotReleased = false;
  const releaseSlot = async () => {
    await releaseAttemptSlot(db, checkout.id, attemptId);
    slotReleased = true;
  };
  try {
    stored = await storePaymentMethod(deps, merchant, checkout, method, body.save_payment_method ?? false);
    const paymentMethodId = stored.method.id;
    // The admission found no charge in progress, but the workflow may still be ending the attempt
    // before, whose charge ended a moment ago (a pending charge the processor failed: the workflow
    // reads it after that commit), and refuses this one as in flight until then. Such a refusal is
    // sent again under the same update id (a refused update is not kept).
    // The attempt reaches its workflow within the reach, or is answered 503 and refused by the
    // workflow if it arrives later (acceptBy): a 503 never becomes a charge behind the customer's back.
    const send = () =>
      withinReach(deps.temporal, Date.now() + TEMPORAL_REACH_MS, () =>
        sendOnceCaughtUp(
          () => sendAttempt(deps, checkout, { attemptId, paymentMethodId, amountCents, acceptBy: reachUntil() }, requestUpdateId),
          (error) => error instanceof WorkflowUpdateFailedError && failureType(error) === FAILURE_TYPES.attemptInFlight,
        ),
      );
    result = await send().catch((error: unknown) => finishBegunAttempt(deps, attemptId, error, send, releaseSlot));
  } catch (error) {
    // A refused attempt leaves nothing behind: the method it stored goes, unless something uses it.
    // After a transient failure (503) the update may still run, so its method stays.
    if (stored?.created && !(error instanceof ServiceUnavailableError)) {
      await deleteUnusedPaymentMethod(db, merchant.id, stored.method.id).catch((err) => deps.logger.warn({ err }, 'could not remove an unused payment method'));
    }
    throw attemptRefusal(error, merchant, checkout);
  } finally {
    if (!slotReleased && !slotFreedByAnswer(result)) await releaseSlot();
  }
  if (result.kind === 'review') return { kind: 'review', review: presentAttemptReview((await findReviewUnscoped(db, result.reviewId))!) };
  // Workflows started before the answer carried the charge: read it back.
  const charge = result.charge ?? (await findChargeByIdUnscoped(db, result.chargeId))!;
  // A subscription's first success kept its method for renewals (marked it saved) in the charge's commit.
  const chargedMethod = checkout.subscription && charge.status === 'succeeded' ? ((await findPaymentMethod(db, merchant.id, stored.method.id)) ?? stored.method) : stored.method;
  const customer = await customerRead;
  if (!customer) throw new Error(`checkout ${checkout.id} references a missing customer`);
  const presented = presentCharge(charge, customer, chargedMethod);
  // 3D Secure: the page sends the customer to the issuer's challenge, which brings them back to it.
  const nextAction = 'next_action' in charge ? charge.next_action : undefined;
  return { kind: 'charge', charge: nextAction ? { ...presented, next_action: nextAction } : presented };
}

/**
 * Hands the attempt to the checkout's workflow. The first attempt starts that workflow with its
 * update (update-with-start); a later one, whose checkout has admitted attempts before, is sent as
 * a plain update, which costs the server less, and only when the workflow is not there after all
 * (the earlier attempt never reached Temporal) with its start.
 */
async function sendAttempt(deps: AppDeps, checkout: CheckoutRow, input: AttemptInput, requestUpdateId: string): Promise<AttemptResult> {
  const { workflow } = deps.temporal;
  // An update id of this request's own: a request that answered 503 may have left its update to be
  // refused later (its charge fenced out), and the same attempt sent again must not meet that refusal.
  const update = { args: [input] as [AttemptInput], updateId: `${input.attemptId}:${requestUpdateId}` };
  const handle = () => workflow.getHandle(checkoutWorkflowId(checkout.id));
  const withStart = () => workflow.executeUpdateWithStart(submitAttemptUpdate, { ...update, startWorkflowOperation: checkoutWorkflowStart(deps.config.taskQueue, checkout) });
  const complete = async () => {
    if (checkout.attempts_count === 0) return withStart();
    try {
      return await handle().executeUpdate(submitAttemptUpdate, update);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return withStart();
      throw error;
    }
  };
  return outcomeWithinReach(workflow, { complete, accept: () => handle().startUpdate(submitAttemptUpdate, { ...update, waitForStage: WorkflowUpdateStage.ACCEPTED }) });
}

/**
 * How often, and for how long, an attempt that began in time is sent again while its lost workflow
 * task is retried: past the workflow task's timeout (10 s) and a worker's restart.
 */
const BEGUN_RESEND = { pauseMs: 500, forMs: 20_000 } as const;

/**
 * An attempt that could not be answered within the reach but whose charge is written began in time
 * (its workflow task ran the charge, then was lost: a worker that crashed, a Temporal server that
 * died). Its workflow refuses the lost update when it comes back, its acceptBy passed, so the attempt
 * is sent again under the same update id, each time with a new reach, until it is answered or
 * BEGUN_RESEND.forMs has passed: work that began is finished (the charge by its attempt key, once),
 * work that never began is refused. While the Temporal server does not answer at all, nothing is
 * sent again: the attempt is answered at once with its charge as recorded, as the same request sent
 * again would be, never with a 503 that would say nothing was done. Any other failure, or an
 * attempt with no charge, is thrown as it came.
 */
async function finishBegunAttempt(deps: AppDeps, attemptId: string, error: unknown, send: () => Promise<AttemptResult>, releaseSlot: () => Promise<void>): Promise<AttemptResult> {
  const gaveUp = (e: unknown) => e instanceof ServiceUnavailableError || failureType(e) === FAILURE_TYPES.requestAnswered;
  if (!gaveUp(error)) throw error;
  // Given up: the attempt's slot is freed before its charge is looked for. A charge needs the slot
  // held (insertChargeWhileLive), so none is made after this, should Temporal run the attempt later
  // after all (a workflow task that began before the request's deadline and ended after it): the
  // charge found now is the only one this attempt will ever have, and none means the 503 is true.
  await releaseSlot();
  const charge = await findChargeByAttemptKeyUnscoped(deps.db, attemptId);
  if (!charge) throw error;
  const until = Date.now() + BEGUN_RESEND.forMs;
  for (;;) {
    if (!(await temporalAnswers(deps.temporal))) return { kind: 'charge', chargeId: charge.id };
    try {
      return await send();
    } catch (again) {
      if (!gaveUp(again) || Date.now() >= until) throw again;
      await new Promise((resolve) => setTimeout(resolve, BEGUN_RESEND.pauseMs));
    }
  }
}

const presentAttemptReview = (review: ReviewRow) => ({ id: review.id, status: review.status, amount_cents: review.amount_cents, created_at: review.created_at.toISOString() });
type AttemptReview = ReturnType<typeof presentAttemptReview>;

/**
 * A request sent again under its Idempotency-Key after its answer was lost (a 503 once the update
 * had been accepted, an API process that stopped): the attempt it started is answered as it stands
 * (202 with its review, or 201 with its charge), before the checkout's state, which that very
 * attempt may have moved (a charge in progress, a completed checkout), would refuse it with a 422.
 * Null when it started nothing yet: the request then runs, and reaches the same update.
 */
async function answeredEarlier(deps: AppDeps, checkout: CheckoutRow, attemptId: string): Promise<AttemptAnswer | null> {
  const review = await findCheckoutReview(deps.db, checkout.id);
  if (review?.attempt_key === attemptId) return { kind: 'review', review: presentAttemptReview(review) };
  const charge = await findChargeByAttemptKeyUnscoped(deps.db, attemptId);
  if (!charge || charge.checkout_id !== checkout.id) return null;
  return { kind: 'charge', charge: await presentLoaded(deps.db, charge) };
}

/**
 * Whether the attempt's slot is already free. An answer carrying the charge comes from the
 * activity whose charge insert freed the slot in its own commit (the charge, created, holds the
 * checkout from then on). Any other outcome, and a charge answered by a worker or workflow from
 * before that (a rolling deploy: an old worker's insert leaves the slot held), needs the release.
 */
export function slotFreedByAnswer(result: AttemptResult | undefined): boolean {
  return result?.kind === 'charge' && result.charge !== undefined;
}

/**
 * A checkout has at most one review: once it exists, an attempt that would need another one is
 * refused before anything is tokenized. The workflow checks the same rule again (it decides).
 */
async function assertReviewAvailable(deps: AppDeps, merchant: MerchantRow, checkout: CheckoutRow, amountCents: number): Promise<void> {
  if (!reviewRequired(merchant.settings, checkout.type, amountCents)) return;
  if (await findCheckoutReview(deps.db, checkout.id)) {
    throw new ValidationError(REVIEW_SPENT_MESSAGE, reviewSpentHint(merchant.settings.review.min_amount_cents));
  }
}

/** What the 429 names for each velocity limit, and what the customer can do about it. */
const VELOCITY_ANSWERS = {
  card: { what: 'with this card', instead: ', or use another payment method' },
  ip: { what: 'from this network address', instead: ', or use another payment method' },
  customer: { what: 'for this customer', instead: '' },
} as const;

/**
 * Logs the attempt and admits it in one commit. Card testing stops here: every attempt is logged
 * with its card number's key, its customer and its client IP, and with the merchant's velocity
 * limits on, a card number, an IP or (when limited) a customer over its hourly limit is answered
 * 429 (its line and nothing else rolled back).
 */
async function logAndAdmit(deps: AppDeps, merchant: MerchantRow, checkout: CheckoutRow, attemptId: string, method: CheckedPaymentMethod, clientIp: string | null): Promise<AdmissionRefusal | null> {
  const entry = { merchant_id: merchant.id, checkout_id: checkout.id, customer_id: checkout.customer_id, fingerprint: method.fingerprint, number_key: method.numberKey, client_ip: clientIp };
  const velocity = merchant.settings.velocity_limits;
  const { attemptSlotSeconds } = deps.config;
  if (!velocity.enabled) return admitAttempt(deps.db, checkout.id, attemptId, entry, attemptSlotSeconds);
  return deps.db.transaction(async (trx) => {
    const refusal = await logAttempt(trx, entry, velocity);
    if (!refusal) return admitAttempt(trx, checkout.id, attemptId, null, attemptSlotSeconds);
    const answer = VELOCITY_ANSWERS[refusal.limit];
    throw new RateLimitedError(`Too many payment attempts ${answer.what}.`, `Try again in ${refusal.retryAfterSeconds} seconds${answer.instead}.`, refusal.retryAfterSeconds);
  });
}

/** The workflow's refusals become the wallet's 422s; anything else stays an internal error. */
function attemptRefusal(error: unknown, merchant: MerchantRow, checkout: CheckoutRow): unknown {
  // Its workflow has ended (and is never started again), or was never recorded.
  if (error instanceof WorkflowNotFoundError || error instanceof WorkflowExecutionAlreadyStartedError) return new ValidationError('This checkout is no longer open.', NEW_CHECKOUT);
  if (!(error instanceof WorkflowUpdateFailedError)) return error;
  switch (failureType(error)) {
    case FAILURE_TYPES.requestAnswered:
      return unreachable();
    case FAILURE_TYPES.attemptInFlight:
      return IN_FLIGHT();
    case FAILURE_TYPES.checkoutBlocked:
      return new ValidationError(STATE_MESSAGES.blocked, 'Contact the merchant.');
    case FAILURE_TYPES.reviewSpent:
      return new ValidationError(REVIEW_SPENT_MESSAGE, reviewSpentHint(merchant.settings.review.min_amount_cents));
    case FAILURE_TYPES.attemptLimit:
      return attemptLimitError(checkout);
    case FAILURE_TYPES.admissionRefused:
      // The merchant's settings changed between the wallet's own checks and the attempt's plan.
      return new ValidationError('This payment method cannot be used for this checkout now.', 'Choose another payment method, or contact the merchant.');
    case FAILURE_TYPES.checkoutClosed:
    case FAILURE_TYPES.checkoutNotOpen:
      return new ValidationError('This checkout takes no new attempt.', 'It was completed, expired or blocked while this attempt waited.');
    default:
      // Any other business refusal raised by the workflow or one of its activities.
      return new ValidationError('This payment attempt could not be processed.', 'Try again, or use another payment method.');
  }
}
