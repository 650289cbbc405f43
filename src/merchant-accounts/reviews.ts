import type { AppDeps } from '../app-deps';
import { reviewDetails } from '../admin/service';
import { MerchantNotFoundError } from '../http/errors';
import { listPage } from '../readback/list-page';
import { presentReview } from '../reviews/present';
import { decideReview } from '../reviews/service';
import { pageReviews } from '../storage/pages';
import { findReviewUnscoped, type ReviewRow } from '../storage/reviews';
import type { ReviewDecision } from '../../workflows/contract';
import { sessionActor, type MerchantSession } from '../identity/sessions';
import { asMerchantNotFound } from './developers';

/**
 * The merchant's withdrawal reviews: the queue with what a reviewer decides on, and the decision,
 * sent to the paused checkout workflow exactly as the admin API sends it, with the person as decider.
 */

export interface ReviewQueueQuery {
  status?: ReviewRow['status'];
  order: 'oldest' | 'newest';
  limit: number;
  starting_after?: string;
}

export function reviewQueuePage(deps: AppDeps, merchantId: string, query: ReviewQueueQuery) {
  return asMerchantNotFound(
    listPage(
      () => pageReviews(deps.db, merchantId, { status: query.status }, query.order === 'oldest', { limit: query.limit, startingAfter: query.starting_after }),
      async (rows) => {
        const details = await reviewDetails(deps.db, rows);
        return rows.map((row, i) => ({ ...presentReview(row), ...details[i]! }));
      },
    ),
  );
}

/** The name a decision records: the person's email (their id is the audit entry's actor). */
export const deciderOf = (session: MerchantSession) => session.user.email;

export async function decideMerchantReview(deps: AppDeps, session: MerchantSession, reviewId: string, decision: ReviewDecision) {
  const merchantId = session.merchant.id;
  const review = await findReviewUnscoped(deps.db, reviewId);
  if (!review || review.merchant_id !== merchantId) throw new MerchantNotFoundError('Review not found.', `No review ${reviewId} in this account.`);
  // The audit row is written by the activity that records the decision, in its transaction.
  return decideReview(deps, reviewId, decision, deciderOf(session), { actor: sessionActor(session) });
}
