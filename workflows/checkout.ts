import {
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  condition,
  executeChild,
  makeContinueAsNewFunc,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  allHandlersFinished,
  workflowInfo,
} from '@temporalio/workflow';
import { context as traceContext, type Context as TraceContext } from '@opentelemetry/api';
import type { Activities } from '../activities';
import {
  FAILURE_TYPES,
  MerchantIdAttribute,
  applicationFailureOf,
  failureType,
  refundWorkflowId,
  type CheckoutState,
  chargeMovedSignal,
  checkoutSearchAttributes,
  checkoutStatusQuery,
  decideReviewUpdate,
  submitAttemptUpdate,
  type AttemptInput,
  type AttemptResult,
  type CheckoutWorkflowInput,
  type ReviewDecision,
  type ReviewSnapshot,
} from './contract';
import { DATABASE, DATABASE_LOCAL, HOLD, PROCESSOR, PROCESSOR_LOCAL } from './retry-policies';
import { waitUnlessMoved } from './waits';
import { refundWorkflow } from './refund';
import type { ChargeSnapshot } from '../activities/charges';
import type { HoldAnswer } from '../activities/holds';

const db = proxyActivities<Activities>(DATABASE);
const processor = proxyActivities<Activities>(PROCESSOR);
const hold = proxyActivities<Activities>(HOLD);
const local = proxyLocalActivities<Activities>(PROCESSOR_LOCAL);
const dbLocal = proxyLocalActivities<Activities>(DATABASE_LOCAL);

/**
 * One workflow per checkout (workflow id = checkout id). It is the single writer of the
 * checkout's charges while the checkout lives: attempts arrive as updates and run one at a time;
 * a durable timer expires the checkout; a review waits for the reviewer with no timeout.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<{ state: CheckoutState }> {
  let state: CheckoutState = 'open';
  let inFlight = false;
  /** Set while the checkout is being expired: no attempt is accepted from then on. */
  let closing = false;
  let attemptsAccepted = input.attemptsBefore ?? 0;
  const maxAttempts = input.maxAttempts ?? Number.POSITIVE_INFINITY;
  const queue: AttemptInput[] = [];
  const answers = new Map<string, AttemptResult>();
  /**
   * Each attempt's trace context (its update's span), so the activities the main loop runs for it
   * join the wallet request's trace rather than the checkout creation's. Headers only, no commands.
   */
  const attemptTraces = new Map<string, TraceContext>();
  const refusals = new Map<string, ApplicationFailure>();
  let decision: ReviewDecision | undefined;
  let decided: ReviewSnapshot | undefined;
  /** Who made `decision`, when its update said (updates sent before it existed did not). */
  let decidedBy: string | undefined;
  /** The refusal of the decision being recorded; its update throws it and the review takes another. */
  let decisionRefused: ApplicationFailure | undefined;

  setHandler(checkoutStatusQuery, () => ({ state, attemptInFlight: inFlight }));
  /** Charges moved outside the workflow (chargeMovedSignal): from held, and from anything else. */
  const movedCharges = new Set<string>();
  const movedFromHeld = new Set<string>();
  setHandler(chargeMovedSignal, (chargeId, from) => void (from === 'held' ? movedFromHeld : movedCharges).add(chargeId));

  setHandler(
    submitAttemptUpdate,
    async (attempt) => {
      inFlight = true; // set before any await, so a second update's validator sees it
      attemptsAccepted += 1;
      queue.push(attempt);
      attemptTraces.set(attempt.attemptId, traceContext.active());
      await condition(() => answers.has(attempt.attemptId) || refusals.has(attempt.attemptId));
      const refusal = refusals.get(attempt.attemptId);
      if (refusal) throw refusal;
      return answers.get(attempt.attemptId)!;
    },
    {
      // A refused update is not written to history, so refusals cannot grow it.
      validator: (_attempt: AttemptInput) => {
        if (state !== 'open' || closing) throw ApplicationFailure.nonRetryable(`checkout is ${closing ? 'expiring' : state}`, FAILURE_TYPES.checkoutNotOpen);
        if (inFlight) throw ApplicationFailure.nonRetryable('another attempt is in progress', FAILURE_TYPES.attemptInFlight);
        // The limit bounds the history: about 25 events an attempt.
        if (attemptsAccepted >= maxAttempts) throw ApplicationFailure.nonRetryable('attempt limit reached', FAILURE_TYPES.attemptLimit);
      },
    },
  );

  setHandler(
    decideReviewUpdate,
    async (d, by) => {
      decision = d;
      decidedBy = by;
      await condition(() => decided !== undefined || decisionRefused !== undefined);
      if (decided === undefined && decisionRefused) {
        const refusal = decisionRefused;
        decisionRefused = undefined;
        decision = undefined; // the review is pending again: the next decision is accepted
        throw refusal;
      }
      return decided!;
    },
    {
      validator: (_decision: ReviewDecision, _decidedBy?: string) => {
        if (state !== 'in_review' || decision !== undefined) {
          throw ApplicationFailure.nonRetryable('review already decided', FAILURE_TYPES.reviewAlreadyDecided);
        }
      },
    },
  );

  const answer = (attempt: AttemptInput, result: AttemptResult) => answers.set(attempt.attemptId, result);
  /** The wallet's answer for a charge: with the charge itself, so the API need not read it back. */
  const charged = (current: ChargeSnapshot): AttemptResult =>
    current.answer ? { kind: 'charge', chargeId: current.chargeId, charge: current.answer } : { kind: 'charge', chargeId: current.chargeId };

  /** Runs one attempt to its end; answers the wallet as soon as the first outcome is known. */
  async function runAttempt(attempt: AttemptInput): Promise<void> {
    const request = { checkoutId: input.checkoutId, paymentMethodId: attempt.paymentMethodId, amountCents: attempt.amountCents };
    const begun = await beginAttempt(attempt, request);
    const plan = begun.plan;
    if (plan.block) {
      await db.blockCheckout({ checkoutId: input.checkoutId, ...plan.block });
      state = 'blocked';
      throw ApplicationFailure.nonRetryable('checkout blocked', FAILURE_TYPES.checkoutBlocked);
    }
    let reviewId: string | undefined;
    if (plan.needsReview) {
      const review = await db.createReview({ checkoutId: input.checkoutId, attemptKey: attempt.attemptId, paymentMethodId: attempt.paymentMethodId, amountCents: attempt.amountCents });
      state = 'in_review';
      answer(attempt, { kind: 'review', reviewId: review.id });
      const { checkoutExpiresAt, ...snapshot } = await reviewDecision();
      decided = snapshot;
      if (decided.status === 'declined') {
        state = 'blocked';
        return;
      }
      if (checkoutExpiresAt) expiresAt = Date.parse(checkoutExpiresAt); // expiry resumes with the time that was left
      state = 'open';
      reviewId = review.id;
    }
    // The approval is spent by this charge: it authorizes exactly this attempt's amount and method.
    const charge = begun.charge ?? (await db.createCharge({ ...request, attemptKey: attempt.attemptId, reviewId }));
    const final = input.type === 'deposit' ? await runDeposit(attempt, charge, plan.settlementMs) : await runWithdrawal(attempt, charge, plan);
    // A charge moved on by someone else (voided, returned, refunded, even failed) after it
    // succeeded has still completed the checkout, as the database recorded with the success.
    if (final.status === 'succeeded' || final.checkoutCompleted === true) {
      state = 'completed'; // recorded by the move itself, in the same commit as the charge
      if (plan.autoRefund && final.status === 'succeeded') await sandboxAutoRefund(final.chargeId);
    }
  }

  /** The reviewer's decision as recorded; an approval refused by its re-checks waits for the next decision. */
  async function reviewDecision() {
    for (;;) {
      // No timeout: a person decides, and the checkout's expiry pauses meanwhile.
      await condition(() => decision !== undefined);
      try {
        const by = decidedBy !== undefined ? { decidedBy } : {};
        return await db.recordReviewDecision({ checkoutId: input.checkoutId, decision: decision!, ...by });
      } catch (error) {
        if (failureType(error) !== FAILURE_TYPES.approvalRefused) throw error;
        decisionRefused = ApplicationFailure.nonRetryable(applicationFailureOf(error)?.message ?? 'approval refused', FAILURE_TYPES.approvalRefused);
        await condition(() => decisionRefused === undefined);
      }
    }
  }

  async function runDeposit(attempt: AttemptInput, charge: ChargeSnapshot, settlementMs: number): Promise<ChargeSnapshot> {
    let current = charge.status === 'created' ? await processor.chargeDeposit({ chargeId: charge.chargeId }) : charge;
    answer(attempt, charged(current));
    if (current.status === 'pending') {
      await untilSettlement(charge.chargeId, settlementMs);
      current = await processor.settleCharge({ chargeId: charge.chargeId });
    }
    return current;
  }

  /**
   * Waits out a pending charge's settlement time, or less when the charge was moved meanwhile:
   * settleCharge then finds it failed, cancelled or settled and the checkout takes the next attempt
   * at once.
   */
  const untilSettlement = (chargeId: string, ms: number) => waitUnlessMoved(movedCharges, chargeId, ms);

  /**
   * Waits out a held charge's hold time, or less when the charge was moved meanwhile (failed,
   * paid, made pending): payoutCharge then finds it moved on, and a failed one frees the checkout
   * for the next attempt at once.
   */
  const untilPayout = (chargeId: string, ms: number) => waitUnlessMoved(movedFromHeld, chargeId, ms);

  async function runWithdrawal(attempt: AttemptInput, charge: ChargeSnapshot, plan: { holdMs: number; settlementMs: number }): Promise<ChargeSnapshot> {
    let holdAnswer: HoldAnswer | undefined;
    try {
      holdAnswer = await hold.placeHold({ chargeId: charge.chargeId });
    } catch {
      holdAnswer = undefined; // the hold activity itself failed: the recorded answer decides
    }
    let current = await db.resolveHold({
      chargeId: charge.chargeId,
      accepted: holdAnswer?.accepted ?? false,
      answered: holdAnswer !== undefined && holdAnswer.sent,
      sentByOther: holdAnswer?.sent === false,
    });
    answer(attempt, charged(current));
    // The simulator placed the hold and moved the charge on to a payout under way: follow it to its settlement.
    if (current.status === 'pending') {
      await untilSettlement(charge.chargeId, plan.settlementMs);
      return processor.settleCharge({ chargeId: charge.chargeId });
    }
    if (current.status !== 'held') return current;
    await untilPayout(charge.chargeId, plan.holdMs);
    current = await processor.payoutCharge({ chargeId: charge.chargeId });
    if (current.status === 'pending') {
      await untilSettlement(charge.chargeId, plan.settlementMs);
      current = await processor.settleCharge({ chargeId: charge.chargeId });
    }
    return current;
  }

  /**
   * One hop: plan, charge and (for a deposit) the processor's answer in one local activity, run
   * by the worker inside the workflow task that accepted the update, so the wallet's answer needs
   * no activity task round trip. The hold is never part of it: it stays a regular activity. The
   * checkout's merchant and customer let the activity read all its rows at once.
   */
  function beginAttempt(attempt: AttemptInput, request: { checkoutId: string; paymentMethodId: string; amountCents: number }) {
    return local.beginAttempt({ ...request, merchantId: input.merchantId, customerId: input.customerId, attemptKey: attempt.attemptId });
  }

  /** The same checkout in a fresh run: its deadline as it stands now, its attempts so far. */
  function continueAsNewCheckout(): Promise<never> {
    const continued = makeContinueAsNewFunc<typeof checkoutWorkflow>({ typedSearchAttributes: checkoutSearchAttributes(input) });
    return continued({ ...input, expiresAt: new Date(expiresAt).toISOString(), attemptsBefore: attemptsAccepted });
  }

  /** Sandbox: a 1.08 USD deposit is refunded through the same refund workflow the API uses. */
  async function sandboxAutoRefund(chargeId: string): Promise<void> {
    try {
      await executeChild(refundWorkflow, {
        workflowId: refundWorkflowId(chargeId),
        args: [{ chargeId, source: 'sandbox' }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        // Like refunds the API starts, so filtering by MerchantId shows it.
        typedSearchAttributes: [{ key: MerchantIdAttribute, value: input.merchantId }],
      });
    } catch {
      // A refund already started by the merchant, or refused by the processor: nothing to add.
    }
  }

  /** The running expiry timer and the deadline it is for; replaced when a review moves the deadline. */
  let expiry: { deadline: number; fired: boolean; scope: CancellationScope } | undefined;
  function expiryTimer(deadline: number): { fired: boolean } {
    if (expiry?.deadline === deadline) return expiry;
    expiry?.scope.cancel();
    const timer = { deadline, fired: false, scope: new CancellationScope() };
    const remaining = deadline - Date.now();
    if (remaining > 0) {
      timer.scope.run(() => sleep(remaining)).then(
        () => void (timer.fired = true),
        () => undefined, // cancelled: the deadline moved
      );
    } else timer.fired = true;
    expiry = timer;
    return timer;
  }

  /** Waits for the next attempt or the expiry; true when an attempt is queued. */
  async function nextAttemptBeforeExpiry(): Promise<boolean> {
    const timer = expiryTimer(expiresAt);
    await condition(() => queue.length > 0 || timer.fired);
    return queue.length > 0;
  }

  let expiresAt = Date.parse(input.expiresAt);
  while (state === 'open') {
    if (await nextAttemptBeforeExpiry()) {
      const attempt = queue.shift()!;
      try {
        await traceContext.with(attemptTraces.get(attempt.attemptId) ?? traceContext.active(), () => runAttempt(attempt));
      } catch (error) {
        // Only non-retryable failures reach here (all other activity failures are retried);
        // the checkout stays open and the wallet hears why this attempt could not run. A
        // refusal raised in an activity arrives wrapped: its type is the cause's.
        refusals.set(attempt.attemptId, ApplicationFailure.nonRetryable('the attempt could not be processed', failureType(error) ?? 'ATTEMPT_FAILED'));
      } finally {
        inFlight = false;
        attemptTraces.delete(attempt.attemptId);
      }
      if (state === 'open' && workflowInfo().continueAsNewSuggested) {
        // The attempt's update has returned its answer; an attempt accepted meanwhile runs first (it
        // keeps a handler open until the loop runs it, so waiting for every handler alone would hang).
        await condition(() => queue.length > 0 || allHandlersFinished());
        // Only between attempts: nothing queued, nothing in flight, no review, not expiring.
        if (state === 'open' && !closing && !inFlight && queue.length === 0) return continueAsNewCheckout();
      }
      continue;
    }
    closing = true;
    // One workflow task per expiry: 10,000 checkouts expiring in a minute cost no activity tasks.
    if (await dbLocal.expireCheckout({ checkoutId: input.checkoutId })) state = 'expired';
    else break; // never recorded, or no longer open: nothing left to run
  }
  // No attempt is left without an answer: one accepted while the checkout was closing is refused.
  for (const attempt of queue.splice(0)) {
    refusals.set(attempt.attemptId, ApplicationFailure.nonRetryable(`checkout is ${state}`, FAILURE_TYPES.checkoutClosed));
  }
  await condition(allHandlersFinished);
  return { state };
}

