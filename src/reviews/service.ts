import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { AppDeps } from '../app-deps';
import { reviewDetails, withMerchantNames } from '../admin/service';
import { adminPage, type AdminPageQuery } from '../readback/list-page';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { countReviewsUnscoped, pageReviewsUnscoped, type ReviewFilter } from '../storage/pages';
import { findReviewUnscoped, type ReviewRow } from '../storage/reviews';
import { presentReview } from './present';
import { executeUpdateRetrying, sendOnceCaughtUp } from '../temporal/updates';
import { FAILURE_TYPES, applicationFailureOf, checkoutWorkflowId, decideReviewUpdate, failureType, type DecisionAudit, type ReviewDecision } from '../../workflows/contract';

export interface ReviewListQuery extends AdminPageQuery {
  status?: ReviewRow['status'];
  merchant_id?: string;
  min_amount_cents?: number;
  max_amount_cents?: number;
  min_age_minutes?: number;
  order: 'oldest' | 'newest';
}

/**
 * A page of the operator's review queue across merchants, each review with what a reviewer needs
 * beside it (the merchant by name), and how many reviews of each status the same filters select.
 */
export async function listReviewsForOperator(db: Db, query: ReviewListQuery) {
  if (query.min_amount_cents !== undefined && query.max_amount_cents !== undefined && query.min_amount_cents > query.max_amount_cents) {
    throw new ValidationError('Query is invalid: min_amount_cents is more than max_amount_cents.', 'Pass min_amount_cents at most max_amount_cents (both in cents).');
  }
  const filter: ReviewFilter = {
    merchant_id: query.merchant_id,
    minAmountCents: query.min_amount_cents,
    maxAmountCents: query.max_amount_cents,
    createdBefore: query.min_age_minutes !== undefined ? new Date(Date.now() - query.min_age_minutes * 60_000) : undefined,
  };
  const [page, counts] = await Promise.all([
    adminPage((request) => pageReviewsUnscoped(db, { ...filter, status: query.status }, query.order === 'oldest', request), query, async (rows) => {
      const details = await reviewDetails(db, rows);
      return withMerchantNames(db, rows.map((row, i) => ({ ...presentReview(row), ...details[i]! })));
    }),
    countReviewsUnscoped(db, filter),
  ]);
  return { ...page, counts };
}

/**
 * A reviewer's decision, sent to the paused checkout workflow, which decides: the review as it
 * stands after it, with its decider. A review already decided (by another reviewer, or before)
 * is a 422; so is an approval whose re-checks refused it (the review stays pending). `audit`
 * (a merchant's person) has the decision's audit row written in the decision's own transaction.
 */
export async function decideReview(deps: AppDeps, reviewId: string, decision: ReviewDecision, decidedBy: string, audit?: DecisionAudit) {
  const { db, temporal } = deps;
  const review = await findReviewUnscoped(db, reviewId);
  if (!review) throw new AdminNotFoundError('Review not found.', `No review ${reviewId}.`);
  if (review.status !== 'pending') throw alreadyDecided(review.id, review.status);
  try {
    // One update id per send: a send's own retries after a transient refusal reach the same
    // decision, while a second reviewer's request, even at the same moment and for the same
    // decision, is a second update that the workflow refuses (one decision, one 200).
    const decided = await sendOnceCaughtUp(
      () => executeUpdateRetrying(temporal.workflow.getHandle(checkoutWorkflowId(review.checkout_id)), decideReviewUpdate, { args: audit ? [decision, decidedBy, audit] : [decision, decidedBy], updateId: `${review.id}-decision-${randomUUID()}` }),
      // The review is listed (its row committed) a moment before its workflow, which made it,
      // hears back and waits for the decision: until then it refuses every decision as a second
      // one. Sent again shortly, this one decides; a decision another reviewer made shows in the row.
      async (error) => error instanceof WorkflowUpdateFailedError && failureType(error) === FAILURE_TYPES.reviewAlreadyDecided && (await findReviewUnscoped(db, review.id))?.status === 'pending',
    );
    if (decided.status !== decision) throw alreadyDecided(review.id, decided.status);
    return { ...decided, decided_by: decidedBy };
  } catch (error) {
    // The approval's re-checks refused it (approvalRefusal): the review is still pending.
    if (failureType(error) === FAILURE_TYPES.approvalRefused) {
      throw new ValidationError('Approval refused.', applicationFailureOf(error)!.message);
    }
    // The workflow refuses a second decision: another reviewer decided first.
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
      const current = (await findReviewUnscoped(db, review.id))!;
      throw alreadyDecided(review.id, current.status);
    }
    throw error;
  }
}

function alreadyDecided(id: string, status: string): ValidationError {
  return new ValidationError('Review already decided.', `Review ${id} is ${status}; a decision cannot be changed.`);
}
