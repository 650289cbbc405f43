import {
  ApplicationFailure,
  ParentClosePolicy,
  condition,
  executeChild,
  proxyActivities,
  setHandler,
  sleep,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  FAILURE_TYPES,
  checkoutStatusQuery,
  decideReviewUpdate,
  submitAttemptUpdate,
  type AttemptInput,
  type AttemptResult,
  type CheckoutWorkflowInput,
  type ReviewDecision,
  type ReviewSnapshot,
} from './definitions';
import { DATABASE, HOLD, PROCESSOR } from './retry-policies';
import { refundWorkflow } from './refund';
import type { ChargeSnapshot } from '../activities/charges';

const db = proxyActivities<Activities>(DATABASE);
const processor = proxyActivities<Activities>(PROCESSOR);
const hold = proxyActivities<Activities>(HOLD);

type State = 'open' | 'in_review' | 'completed' | 'expired' | 'blocked';

/**
 * One workflow per checkout (workflow id = checkout id). It is the single writer of the
 * checkout's charges while the checkout lives: attempts arrive as updates and run one at a time;
 * a durable timer expires the checkout; a review waits for the reviewer with no timeout.
 */
export async function checkoutWorkflow(input: CheckoutWorkflowInput): Promise<{ state: State }> {
  let state: State = 'open';
  let inFlight = false;
  const queue: AttemptInput[] = [];
  const answers = new Map<string, AttemptResult>();
  const refusals = new Map<string, ApplicationFailure>();
  let decision: ReviewDecision | undefined;
  let decided: ReviewSnapshot | undefined;

  setHandler(checkoutStatusQuery, () => ({ state, attemptInFlight: inFlight }));

  setHandler(
    submitAttemptUpdate,
    async (attempt) => {
      inFlight = true; // set before any await, so a second update's validator sees it
      queue.push(attempt);
      await condition(() => answers.has(attempt.attemptId) || refusals.has(attempt.attemptId));
      const refusal = refusals.get(attempt.attemptId);
      if (refusal) throw refusal;
      return answers.get(attempt.attemptId)!;
    },
    {
      validator: (_attempt: AttemptInput) => {
        if (state !== 'open') throw ApplicationFailure.nonRetryable(`checkout is ${state}`, FAILURE_TYPES.checkoutNotOpen);
        if (inFlight) throw ApplicationFailure.nonRetryable('another attempt is in progress', FAILURE_TYPES.attemptInFlight);
      },
    },
  );

  setHandler(
    decideReviewUpdate,
    async (d) => {
      decision = d;
      await condition(() => decided !== undefined);
      return decided!;
    },
    {
      validator: (_decision: ReviewDecision) => {
        if (state !== 'in_review' || decision !== undefined) {
          throw ApplicationFailure.nonRetryable('review already decided', FAILURE_TYPES.reviewAlreadyDecided);
        }
      },
    },
  );

  const answer = (attempt: AttemptInput, result: AttemptResult) => answers.set(attempt.attemptId, result);

  /** Runs one attempt to its end; answers the wallet as soon as the first outcome is known. */
  async function runAttempt(attempt: AttemptInput): Promise<void> {
    const plan = await db.planAttempt({ checkoutId: input.checkoutId, paymentMethodId: attempt.paymentMethodId, amountCents: attempt.amountCents });
    if (plan.block) {
      await db.blockCheckout({ checkoutId: input.checkoutId, ...plan.block });
      state = 'blocked';
      throw ApplicationFailure.nonRetryable('checkout blocked', FAILURE_TYPES.checkoutBlocked);
    }
    if (plan.needsReview) {
      const review = await db.createReview({ checkoutId: input.checkoutId, attemptKey: attempt.attemptId, paymentMethodId: attempt.paymentMethodId, amountCents: attempt.amountCents });
      state = 'in_review';
      answer(attempt, { kind: 'review', reviewId: review.id });
      await condition(() => decision !== undefined); // no timeout: a person decides
      decided = await db.recordReviewDecision({ checkoutId: input.checkoutId, decision: decision! });
      if (decided.status === 'declined') {
        state = 'blocked';
        return;
      }
      state = 'open';
    }
    const charge = await db.createCharge({ attemptKey: attempt.attemptId, checkoutId: input.checkoutId, paymentMethodId: attempt.paymentMethodId, amountCents: attempt.amountCents });
    const final = input.type === 'deposit' ? await runDeposit(attempt, charge, plan.settlementMs) : await runWithdrawal(attempt, charge, plan);
    if (final.status === 'succeeded') {
      state = 'completed'; // recorded by the move itself, in the same commit as the charge
      if (plan.autoRefund) await sandboxAutoRefund(final.chargeId);
    }
  }

  async function runDeposit(attempt: AttemptInput, charge: ChargeSnapshot, settlementMs: number): Promise<ChargeSnapshot> {
    let current = await processor.chargeDeposit({ chargeId: charge.chargeId });
    answer(attempt, { kind: 'charge', chargeId: charge.chargeId });
    if (current.status === 'pending') {
      await sleep(settlementMs);
      current = await processor.settleCharge({ chargeId: charge.chargeId });
    }
    return current;
  }

  async function runWithdrawal(attempt: AttemptInput, charge: ChargeSnapshot, plan: { holdMs: number; settlementMs: number }): Promise<ChargeSnapshot> {
    let accepted = false;
    try {
      accepted = (await hold.placeHold({ chargeId: charge.chargeId })).accepted;
    } catch {
      accepted = false; // the hold activity itself failed: no answer is the same as "no funds"
    }
    let current = await db.resolveHold({ chargeId: charge.chargeId, accepted });
    answer(attempt, { kind: 'charge', chargeId: charge.chargeId });
    if (current.status !== 'held') return current;
    await sleep(plan.holdMs);
    current = await processor.payoutCharge({ chargeId: charge.chargeId });
    if (current.status === 'pending') {
      await sleep(plan.settlementMs);
      current = await processor.settleCharge({ chargeId: charge.chargeId });
    }
    return current;
  }

  /** Sandbox: a 1.08 USD deposit is refunded through the same refund workflow the API uses. */
  async function sandboxAutoRefund(chargeId: string): Promise<void> {
    try {
      await executeChild(refundWorkflow, {
        workflowId: chargeId,
        args: [{ chargeId, source: 'sandbox' }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch {
      // A refund already started by the merchant, or refused by the processor: nothing to add.
    }
  }

  const expiresAt = Date.parse(input.expiresAt);
  while (state === 'open') {
    const remaining = expiresAt - Date.now();
    const woke = remaining > 0 ? await condition(() => queue.length > 0, remaining) : queue.length > 0;
    if (woke) {
      const attempt = queue.shift()!;
      try {
        await runAttempt(attempt);
      } catch (error) {
        // Only non-retryable failures reach here (all other activity failures are retried);
        // the checkout stays open and the wallet hears why this attempt could not run.
        const type = error instanceof ApplicationFailure ? error.type : undefined;
        refusals.set(attempt.attemptId, ApplicationFailure.nonRetryable('the attempt could not be processed', type ?? 'ATTEMPT_FAILED'));
      } finally {
        inFlight = false;
      }
      continue;
    }
    if (await db.expireCheckout({ checkoutId: input.checkoutId })) state = 'expired';
    else break; // never recorded, or no longer open: nothing left to run
  }
  await condition(allHandlersFinished);
  return { state };
}
