import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../app-deps';
import { presentLoaded } from '../charges/load';
import { ValidationError } from '../http/errors';
import { parseOrThrow } from '../http/validate';
import { findChargeById } from '../storage/charges';
import type { CheckoutRow } from '../storage/checkouts';
import { findMerchant } from '../storage/merchants';
import { findReview } from '../storage/reviews';
import { submitAttemptUpdate, FAILURE_TYPES } from '../../workflows/definitions';
import { AttemptBody } from './attempt-schemas';
import { checkoutOf } from './auth';
import { attemptAmount, resolvePaymentMethod } from './attempt-rules';
import { assertWithdrawalDestination } from './withdrawal-destination';

const STATE_MESSAGES: Record<Exclude<CheckoutRow['state'], 'open'>, string> = {
  in_review: 'This checkout is in review and takes no new attempt.',
  completed: 'This checkout is already completed.',
  expired: 'This checkout has expired.',
  blocked: 'This checkout is blocked and cannot continue.',
};

function refusedState(checkout: CheckoutRow): ValidationError | null {
  if (checkout.state !== 'open') return new ValidationError(STATE_MESSAGES[checkout.state], 'Ask the merchant for a new checkout.');
  if (checkout.expires_at.getTime() <= Date.now()) return new ValidationError(STATE_MESSAGES.expired, 'Ask the merchant for a new checkout.');
  return null;
}

/**
 * One payment attempt from the hosted wallet: validates and tokenizes here (no card number
 * reaches Temporal), then hands the attempt to the checkout's workflow as an update and answers
 * with the charge (201) or the review the withdrawal paused for (202).
 */
export function postAttempt(deps: AppDeps): RequestHandler {
  const { db, temporal } = deps;
  return async (req, res) => {
    const checkout = checkoutOf(req);
    const body = parseOrThrow(AttemptBody, req.body);
    const stateError = refusedState(checkout);
    if (stateError) throw stateError;
    const merchant = (await findMerchant(db, checkout.merchant_id))!;
    const amountCents = attemptAmount(checkout, body.amount_cents);
    const paymentMethod = await resolvePaymentMethod(deps, merchant, checkout, body);
    await assertWithdrawalDestination(db, merchant, checkout, paymentMethod);

    let result;
    try {
      result = await temporal.workflow
        .getHandle(checkout.id)
        .executeUpdate(submitAttemptUpdate, { args: [{ attemptId: randomUUID(), paymentMethodId: paymentMethod.id, amountCents }] });
    } catch (error) {
      throw attemptRefusal(error);
    }
    if (result.kind === 'review') {
      const review = (await findReview(db, result.reviewId))!;
      res.status(202).json({ review: { id: review.id, status: review.status, amount_cents: review.amount_cents, created_at: review.created_at.toISOString() } });
      return;
    }
    const charge = (await findChargeById(db, result.chargeId))!;
    res.status(201).json({ charge: await presentLoaded(db, charge) });
  };
}

/** The workflow's refusals become the wallet's 422s; anything else stays an internal error. */
function attemptRefusal(error: unknown): unknown {
  if (error instanceof WorkflowNotFoundError) return new ValidationError('This checkout is no longer open.', 'Ask the merchant for a new checkout.');
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    const type = error.cause.type;
    if (type === FAILURE_TYPES.attemptInFlight) {
      return new ValidationError('Another payment attempt is still in progress.', 'Wait for its result before trying again.');
    }
    if (type === FAILURE_TYPES.checkoutBlocked) return new ValidationError(STATE_MESSAGES.blocked, 'Contact the merchant.');
    if (type === FAILURE_TYPES.checkoutNotOpen) return new ValidationError('This checkout takes no new attempt.', 'It may be completed, expired or in review.');
  }
  return error;
}
