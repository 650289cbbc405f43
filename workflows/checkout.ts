import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  executeChild,
  makeContinueAsNewFunc,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { context as traceContext } from '@opentelemetry/api';
import type { Activities } from '../activities';
import type { AttemptPlan } from '../activities/attempt-plan';
import type { ChargeSnapshot } from '../activities/charges';
import {
  FAILURE_TYPES,
  MerchantIdAttribute,
  applicationFailureOf,
  refundMemo,
  chargeMovedSignal,
  checkoutMemo,
  checkoutSearchAttributes,
  checkoutStatusQuery,
  decideReviewUpdate,
  failureType,
  refundWorkflowId,
  submitAttemptUpdate,
  type AttemptInput,
  type CheckoutState,
  type CheckoutWorkflowInput,
  type DecisionAudit,
  type ReviewDecision,
} from './contract';
import { attemptInFlight, expiryTimer, newCheckout, pendingReview, type Attempt, type Checkout, type Review } from './checkout-state';
import { DATABASE, DATABASE_LOCAL, HOLD, HOUSEKEEPING, PROCESSOR, PROCESSOR_LOCAL } from './retry-policies';
import { waitUnlessMoved } from './waits';
import { refundWorkflow } from './refund';

const db = proxyActivities<Activities>(DATABASE);
const processor = proxyActivities<Activities>(PROCESSOR);
const hold = proxyActivities<Activities>(HOLD);
const local = proxyLocalActivities<Activities>(PROCESSOR_LOCAL);
const dbLocal = proxyLocalActivities<Activities>(DATABASE_LOCAL);
const housekeeping = proxyActivities<Activities>(HOUSEKEEPING);

/** The patch that has the checkout's end end its expiry workflow too (docs/architecture.md, "Changing a workflow"). */
export const END_EXPIRY_WORKFLOW_PATCH = 'end-expiry-workflow';

/**
 * One workflow per checkout (workflow id = checkout id). It is the single writer of the
 * checkout's charges while the checkout lives: attempts arrive as updates and run one at a time;
 * a durable timer expires the checkout; a review waits for the reviewer with no timeout.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<{ state: CheckoutState }> {
  const checkout = newCheckout(input);
  handleMessages(checkout);
  while (checkout.state === 'open') {
    // The next attempt or the deadline. The attempt becomes the running one in the same step, so
    // it never looks not in flight. (The loop's steps await as little as they can: every promise a
    // workflow makes costs the SDK a stack trace.)
    const timer = expiryTimer(checkout);
    await condition(() => checkout.queue.length > 0 || timer.fired);
    const attempt = (checkout.current = checkout.queue.shift());
    if (attempt) {
      await onAttempt(checkout, attempt);
      if (continueAsNewSuggested(checkout) && (await betweenAttempts(checkout))) return continueAsNewCheckout(checkout);
    } else if (!(await onDeadline(checkout))) break;
  }
  // No attempt is left without an answer: one accepted while the checkout was closing is refused.
  for (const attempt of checkout.queue) {
    attempt.refusal = ApplicationFailure.nonRetryable(`checkout is ${checkout.state}`, FAILURE_TYPES.checkoutClosed);
  }
  if (patched(END_EXPIRY_WORKFLOW_PATCH)) await endExpiryWorkflow(checkout);
  await condition(allHandlersFinished);
  return { state: checkout.state };
}

// ---------------------------------------------------------------------------------------------
// Messages: the attempt and review updates, the status query, the charge-moved signal.

function handleMessages(checkout: Checkout): void {
  setHandler(checkoutStatusQuery, () => ({ state: checkout.state, attemptInFlight: attemptInFlight(checkout) }));
  setHandler(chargeMovedSignal, (chargeId, from) => void (from === 'held' ? checkout.moved.fromHeld : checkout.moved.other).add(chargeId));
  setHandler(submitAttemptUpdate, (attempt) => acceptAttempt(checkout, attempt), {
    // A refused update is not written to history, so refusals cannot grow it.
    validator: (attempt: AttemptInput) => {
      if (answeredAlready(attempt.acceptBy)) throw ApplicationFailure.nonRetryable('the request that sent the attempt was answered before it arrived', FAILURE_TYPES.requestAnswered);
      if (checkout.state !== 'open' || checkout.closing) {
        throw ApplicationFailure.nonRetryable(`checkout is ${checkout.closing ? 'expiring' : checkout.state}`, FAILURE_TYPES.checkoutNotOpen);
      }
      if (attemptInFlight(checkout)) throw ApplicationFailure.nonRetryable('another attempt is in progress', FAILURE_TYPES.attemptInFlight);
      // The limit bounds the history: about 25 events an attempt.
      if (checkout.attemptsAccepted >= (checkout.input.maxAttempts ?? Number.POSITIVE_INFINITY)) {
        throw ApplicationFailure.nonRetryable('attempt limit reached', FAILURE_TYPES.attemptLimit);
      }
    },
  });
  setHandler(decideReviewUpdate, (decision, decidedBy, audit, _acceptBy, fenceId) => decideReview(pendingReview(checkout)!, { decision, decidedBy, audit, fenceId }), {
    validator: (_decision: ReviewDecision, _decidedBy?: string, _audit?: DecisionAudit, acceptBy?: number, _fenceId?: string) => {
      if (answeredAlready(acceptBy)) throw ApplicationFailure.nonRetryable('the request that sent the decision was answered before it arrived', FAILURE_TYPES.requestAnswered);
      if (!pendingReview(checkout)) throw ApplicationFailure.nonRetryable('review already decided', FAILURE_TYPES.reviewAlreadyDecided);
    },
  });
}

/** Work a request sent with a deadline that passed before it arrived (a worker or Temporal away): the request was answered 503. */
const answeredAlready = (acceptBy: number | undefined) => acceptBy !== undefined && Date.now() > acceptBy;

/** Queues the attempt (before any await, so a second update's validator sees it in flight) and answers it once the loop has. */
async function acceptAttempt(checkout: Checkout, input: AttemptInput) {
  const attempt: Attempt = { input, trace: traceContext.active() };
  checkout.attemptsAccepted += 1;
  checkout.queue.push(attempt);
  await condition(() => attempt.answer !== undefined || attempt.refusal !== undefined);
  if (attempt.refusal) throw attempt.refusal;
  return attempt.answer!;
}

/** The reviewer's decision: answered with the review as recorded, or with its refusal (an approval its re-checks refused, a request that gave up first). */
async function decideReview(review: Review, decision: NonNullable<Review['decision']>) {
  review.decision = decision;
  await condition(() => review.decided !== undefined || review.refused !== undefined);
  if (review.decided === undefined && review.refused) {
    const refusal = review.refused;
    review.refused = undefined;
    review.decision = undefined; // the review is pending again: the next decision is accepted
    throw refusal;
  }
  return review.decided!;
}

// ---------------------------------------------------------------------------------------------
// The main loop's steps: expiry, continue-as-new.

/** Expiry: the deadline came with no attempt waiting. False when there is nothing to expire (never recorded, or no longer open). */
async function onDeadline(checkout: Checkout): Promise<boolean> {
  checkout.closing = true;
  // One workflow task per expiry: 10,000 checkouts expiring in a minute cost no activity tasks.
  if (!(await dbLocal.expireCheckout({ checkoutId: checkout.input.checkoutId }))) return false;
  checkout.state = 'expired';
  return true;
}

/**
 * The checkout has ended, so the expiry workflow started with it (still waiting out its start delay,
 * when the checkout ended before its deadline) ends now rather than at the deadline. A regular
 * activity, not a local one: the attempt's answer, sent with this workflow task, does not wait for it.
 * Housekeeping only: should it fail, the expiry workflow ends at the deadline without touching the checkout.
 */
async function endExpiryWorkflow(checkout: Checkout): Promise<void> {
  await housekeeping.endCheckoutExpiry({ ...checkout.input, state: checkout.state }).catch(() => undefined);
}

/**
 * A run whose history Temporal finds long continues as new between attempts, so a checkout takes
 * attempts without limit (the contract's rule) and never meets the history limit.
 */
const continueAsNewSuggested = (checkout: Checkout): boolean => checkout.state === 'open' && workflowInfo().continueAsNewSuggested;

/** Once continuing as new is suggested: whether the checkout is between attempts, as it must be to continue as new. */
async function betweenAttempts(checkout: Checkout): Promise<boolean> {
  // The attempt's update has returned its answer; an attempt accepted meanwhile runs first (it
  // keeps a handler open until the loop runs it, so waiting for every handler alone would hang).
  await condition(() => checkout.queue.length > 0 || allHandlersFinished());
  // Only between attempts: nothing queued, nothing in flight, no review, not expiring.
  return checkout.state === 'open' && !checkout.closing && !attemptInFlight(checkout);
}

/** The same checkout in a fresh run: its deadline as it stands now, its attempts so far. */
function continueAsNewCheckout(checkout: Checkout): Promise<never> {
  const { input } = checkout;
  const continued = makeContinueAsNewFunc<typeof checkoutWorkflow>({ typedSearchAttributes: checkoutSearchAttributes(input), memo: { ...checkoutMemo(input) } });
  return continued({ ...input, expiresAt: new Date(checkout.expiresAt).toISOString(), attemptsBefore: checkout.attemptsAccepted });
}

// ---------------------------------------------------------------------------------------------
// One attempt: plan and charge, a review, the deposit's or withdrawal's path, settlement.

/** Runs the attempt in its update's trace. */
function onAttempt(checkout: Checkout, attempt: Attempt): Promise<void> {
  return traceContext.with(attempt.trace, () => runAttempt(checkout, attempt));
}

/**
 * Runs one attempt to its end; the wallet is answered as soon as the first outcome is known. A
 * refusal is the attempt's answer, and the checkout takes the next one.
 */
async function runAttempt(checkout: Checkout, attempt: Attempt): Promise<void> {
  try {
    const { plan, charge } = await beginAttempt(checkout, attempt);
    if (plan.block) await blockCheckout(checkout, plan.block);
    const approved = plan.needsReview ? await reviewAttempt(checkout, attempt) : undefined;
    if (approved === false) return;
    // The approval is spent by this charge: it authorizes exactly this attempt's amount and method.
    const made = (attempt.charge = charge ?? (await db.createCharge({ ...chargeRequest(checkout, attempt), attemptKey: attempt.input.attemptId, reviewId: attempt.review?.id })));
    // A deposit its own activity took past the processor and settlement (a card's) needs nothing more.
    const depositGoesOn = made.status === 'created' || made.status === 'pending';
    const final = checkout.input.type === 'withdrawal' ? await runWithdrawal(checkout, attempt, plan) : depositGoesOn ? await runDeposit(checkout, attempt, plan) : sawCharge(attempt, made);
    // A charge moved on by someone else (voided, returned, refunded, even failed) after it
    // succeeded has still completed the checkout, as the database recorded with the success.
    if (final.status === 'succeeded' || final.checkoutCompleted === true) {
      checkout.state = 'completed'; // recorded by the move itself, in the same commit as the charge
      if (plan.autoRefund && final.status === 'succeeded') await sandboxAutoRefund(checkout, final.chargeId);
    }
  } catch (error) {
    // Only non-retryable failures reach here (all other activity failures are retried); the
    // checkout stays open and the wallet hears why this attempt could not run. A refusal raised in
    // an activity arrives wrapped: its type is the cause's.
    attempt.refusal = ApplicationFailure.nonRetryable('the attempt could not be processed', failureType(error) ?? 'ATTEMPT_FAILED');
  } finally {
    checkout.current = undefined;
  }
}

const chargeRequest = (checkout: Checkout, { input }: Attempt) => ({ checkoutId: checkout.input.checkoutId, paymentMethodId: input.paymentMethodId, amountCents: input.amountCents });

/**
 * One hop: plan, charge and (for a deposit) the processor's answer in one local activity, run
 * by the worker inside the workflow task that accepted the update, so the wallet's answer needs
 * no activity task round trip. The hold is never part of it: it stays a regular activity. The
 * checkout's merchant and customer let the activity read all its rows at once.
 */
function beginAttempt(checkout: Checkout, attempt: Attempt) {
  const { merchantId, customerId } = checkout.input;
  return local.beginAttempt({ ...chargeRequest(checkout, attempt), merchantId, customerId, attemptKey: attempt.input.attemptId });
}

/** A geo or KYC gate blocks the checkout for good; the attempt is refused. */
async function blockCheckout(checkout: Checkout, block: NonNullable<AttemptPlan['block']>): Promise<never> {
  await db.blockCheckout({ checkoutId: checkout.input.checkoutId, ...block });
  checkout.state = 'blocked';
  throw ApplicationFailure.nonRetryable('checkout blocked', FAILURE_TYPES.checkoutBlocked);
}

/** The review: the attempt is answered with it, and waits for the reviewer. True when approved; declined blocks the checkout. */
async function reviewAttempt(checkout: Checkout, attempt: Attempt): Promise<boolean> {
  const { id } = await db.createReview({ checkoutId: checkout.input.checkoutId, attemptKey: attempt.input.attemptId, paymentMethodId: attempt.input.paymentMethodId, amountCents: attempt.input.amountCents });
  const review: Review = (attempt.review = { id });
  checkout.state = 'in_review';
  attempt.answer = { kind: 'review', reviewId: id };
  const { checkoutExpiresAt, ...decided } = await recordDecision(checkout, review);
  review.decided = decided;
  if (decided.status === 'declined') {
    checkout.state = 'blocked';
    return false;
  }
  if (checkoutExpiresAt) checkout.expiresAt = Date.parse(checkoutExpiresAt); // expiry resumes with the time that was left
  checkout.state = 'open';
  return true;
}

/** Decisions the activity refuses with the review left pending: the review waits for the next decision. */
const isDecisionRefusal = (type: string | undefined) => type === FAILURE_TYPES.approvalRefused || type === FAILURE_TYPES.requestAnswered;

/**
 * Records the reviewer's decision. One the activity refuses (an approval its re-checks refuse, a
 * decision whose request answered 503 first) is answered as refused, and the review waits for the next.
 */
async function recordDecision(checkout: Checkout, review: Review) {
  for (;;) {
    // No timeout: a person decides, and the checkout's expiry pauses meanwhile.
    await condition(() => review.decision !== undefined);
    try {
      // Fields not given are not sent (JSON): an activity input like the ones already in histories.
      return await db.recordReviewDecision({ checkoutId: checkout.input.checkoutId, ...review.decision! });
    } catch (error) {
      if (!isDecisionRefusal(failureType(error))) throw error;
      review.refused = ApplicationFailure.nonRetryable(applicationFailureOf(error)?.message ?? 'decision refused', failureType(error));
      await condition(() => review.refused === undefined);
    }
  }
}

/** The charge as last seen, and the wallet's answer with it (so the API need not read it back). */
function sawCharge(attempt: Attempt, charge: ChargeSnapshot): ChargeSnapshot {
  attempt.charge = charge;
  attempt.answer = charge.answer ? { kind: 'charge', chargeId: charge.chargeId, charge: charge.answer } : { kind: 'charge', chargeId: charge.chargeId };
  return charge;
}

async function runDeposit(checkout: Checkout, attempt: Attempt, plan: AttemptPlan): Promise<ChargeSnapshot> {
  const charge = attempt.charge!;
  const current = sawCharge(attempt, charge.status === 'created' ? await processor.chargeDeposit({ chargeId: charge.chargeId }) : charge);
  return current.status === 'pending' ? settle(checkout, attempt, plan) : current;
}

/** The hold handshake decides the charge: held waits out its hold time and is paid out; pending goes on to its settlement. */
async function runWithdrawal(checkout: Checkout, attempt: Attempt, plan: AttemptPlan): Promise<ChargeSnapshot> {
  const { chargeId } = attempt.charge!;
  // A failed hold activity leaves the decision to the answer recorded in the database.
  attempt.hold = await hold.placeHold({ chargeId }).catch(() => null);
  const answer = attempt.hold;
  const resolved = await db.resolveHold({ chargeId, accepted: answer?.accepted ?? false, answered: answer !== null && answer.sent, sentByOther: answer?.sent === false });
  const current = sawCharge(attempt, resolved);
  // The simulator placed the hold and moved the charge on to a payout under way: follow it to its settlement.
  if (current.status === 'pending') return settle(checkout, attempt, plan);
  if (current.status !== 'held') return current;
  // Less when the held charge was moved meanwhile (failed, paid, made pending): payoutCharge then finds it moved on.
  await waitUnlessMoved(checkout.moved.fromHeld, chargeId, plan.holdMs);
  const paid = (attempt.charge = await processor.payoutCharge({ chargeId }));
  return paid.status === 'pending' ? settle(checkout, attempt, plan) : paid;
}

/**
 * Settlement: waits out a pending charge's settlement time, or less when the charge was moved
 * meanwhile (settleCharge then finds it failed, cancelled or settled, and the checkout takes the
 * next attempt at once), then reads its outcome.
 */
async function settle(checkout: Checkout, attempt: Attempt, plan: AttemptPlan): Promise<ChargeSnapshot> {
  const { chargeId } = attempt.charge!;
  await waitUnlessMoved(checkout.moved.other, chargeId, plan.settlementMs);
  return (attempt.charge = await processor.settleCharge({ chargeId }));
}

/** Sandbox: a 1.08 USD deposit is refunded through the same refund workflow the API uses. */
async function sandboxAutoRefund(checkout: Checkout, chargeId: string): Promise<void> {
  try {
    await executeChild(refundWorkflow, {
      workflowId: refundWorkflowId(chargeId),
      args: [{ chargeId, source: 'sandbox' }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // Like refunds the API starts, so filtering by MerchantId shows it.
      typedSearchAttributes: [{ key: MerchantIdAttribute, value: checkout.input.merchantId }],
      memo: { ...refundMemo({ merchantId: checkout.input.merchantId, checkoutId: checkout.input.checkoutId, chargeId }, 'sandbox') },
    });
  } catch {
    // A refund already started by the merchant, or refused by the processor: nothing to add.
  }
}
