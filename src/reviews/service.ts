import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { AppDeps } from '../app-deps';
import { reviewDetails, withMerchantNames } from '../admin/service';
import { adminPage, type AdminPageQuery } from '../readback/list-page';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import type { Db } from '../storage/db';
import { actorEmail, ADMIN_TOKEN_NAME, inScope, type DashboardActor, type MerchantScope } from '../identity/context';
import { countReviewsUnscoped, pageReviewsUnscoped, type ReviewFilter } from '../storage/pages';
import { findReviewUnscoped, type ReviewRow } from '../storage/reviews';
import { presentReview } from './present';
import { sendOnceCaughtUp, sendUpdateRetrying } from '../temporal/updates';
import { assertClaimedOnGivingUp, gaveUpOnTemporal, reachUntil, REQUEST_ANSWER_MS, TEMPORAL_REACH_MS, withinReach } from '../temporal/deadlines';
import { FAILURE_TYPES, applicationFailureOf, checkoutWorkflowId, decideReviewUpdate, failureType, type DecisionAudit, type ReviewDecision, type ReviewSnapshot } from '../../workflows/contract';

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
 * stands after it, with its decider (the actor's email, `admin API` for the admin token). A
 * review outside the actor's scope is answered like a missing one, for every caller. A review
 * already decided (by another reviewer, or before) is a 422; so is an approval whose re-checks
 * refused it (the review stays pending). The decision's audit row, naming the actor and their
 * client address, is written by the activity that records the decision, in its transaction.
 */
export async function decideReview(deps: AppDeps, actor: DashboardActor, reviewId: string, decision: ReviewDecision, scope: MerchantScope) {
  const { db, temporal } = deps;
  const startedAt = Date.now();
  const review = await findReviewUnscoped(db, reviewId);
  // Another merchant's review (for a merchant's person) is reported exactly like a missing one.
  if (!review || !inScope(scope, review.merchant_id)) throw new AdminNotFoundError('Review not found.', `No review ${reviewId}.`);
  if (review.status !== 'pending') throw alreadyDecided(review.id, review.status);
  const decidedBy = actorEmail(actor) ?? ADMIN_TOKEN_NAME;
  const audit: DecisionAudit = { actor };
  // One update id per send, which is also the send's fence: a send's own retries after a transient
  // refusal reach the same decision, while a second reviewer's request, even at the same moment and
  // for the same decision, is a second update that the workflow refuses (one decision, one 200).
  const sendId = `${review.id}-decision-${randomUUID()}`;
  const handle = temporal.workflow.getHandle(checkoutWorkflowId(review.checkout_id));
  try {
    // Within the reach of Temporal, or given up (decidedAfterGivingUp): a decision arriving later is
    // refused (acceptBy), and one whose workflow task began in time is refused by its fence.
    const decided = await withinReach(temporal, startedAt + TEMPORAL_REACH_MS, () =>
      sendOnceCaughtUp(
        () => sendUpdateRetrying(() => handle.executeUpdate(decideReviewUpdate, { args: [decision, decidedBy, audit, reachUntil(), sendId], updateId: sendId })),
        // The review is listed (its row committed) a moment before its workflow, which made it,
        // hears back and waits for the decision: until then it refuses every decision as a second
        // one. Sent again shortly, this one decides; a decision another reviewer made shows in the row.
        async (error) => error instanceof WorkflowUpdateFailedError && failureType(error) === FAILURE_TYPES.reviewAlreadyDecided && (await findReviewUnscoped(db, review.id))?.status === 'pending',
      ),
    ).catch((error: unknown) => decidedAfterGivingUp(deps, review.id, sendId, startedAt, error));
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

/**
 * A decision whose request gives up on Temporal (its reach passed, or the workflow refused it as
 * arriving late) writes its fence as answered, unless the decision's activity claimed it first, in
 * the commit that recorded the decision. Claimed: the review as decided, answered as the 200 would
 * be. Answered: the decision is never recorded (the activity refuses it), and the 503 says so.
 * PostgreSQL not answering either: a 503 that says the decision may still be recorded.
 */
async function decidedAfterGivingUp(deps: AppDeps, reviewId: string, fenceId: string, startedAt: number, error: unknown): Promise<ReviewSnapshot> {
  if (!gaveUpOnTemporal(error)) throw error;
  await assertClaimedOnGivingUp(deps.db, fenceId, startedAt + REQUEST_ANSWER_MS, `The decision on review ${reviewId} may still be recorded: read the review after Retry-After seconds before deciding again.`);
  return presentReview((await findReviewUnscoped(deps.db, reviewId))!);
}

function alreadyDecided(id: string, status: string): ValidationError {
  return new ValidationError('Review already decided.', `Review ${id} is ${status}; a decision cannot be changed.`);
}
