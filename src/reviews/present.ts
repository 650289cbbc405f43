import type { ReviewRow } from '../storage/reviews';
import type { ReviewSnapshot } from '../../workflows/contract';

/** The review as the admin API and the checkout workflow's decision update answer it. */
export function presentReview(row: ReviewRow): ReviewSnapshot {
  return {
    id: row.id,
    checkout_id: row.checkout_id,
    merchant_id: row.merchant_id,
    customer_id: row.customer_id,
    amount_cents: row.amount_cents,
    status: row.status,
    created_at: row.created_at.toISOString(),
    decided_at: row.decided_at ? row.decided_at.toISOString() : null,
  };
}
