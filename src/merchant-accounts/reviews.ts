import type { AppDeps } from '../app-deps';
import { reviewDetails } from '../admin/service';
import { listPage } from '../readback/list-page';
import { presentReview } from '../reviews/present';
import { pageReviews } from '../storage/pages';
import type { ReviewRow } from '../storage/reviews';
import { asMerchantNotFound } from './developers';

/**
 * The merchant's withdrawal reviews: the queue with what a reviewer decides on (the decision is
 * the reviews service's decideReview, as the admin API's is, with the person as decider).
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
