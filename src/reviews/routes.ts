import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Router } from 'express';
import { z } from 'zod';
import type { AppDeps } from '../app-deps';
import { AdminNotFoundError, ValidationError } from '../http/errors';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import { findReview, listReviews, presentReview } from '../storage/reviews';
import { setReviewDecider } from '../storage/evidence';
import { reviewDetails } from '../admin/service';
import { executeUpdateRetrying, sendOnceCaughtUp } from '../temporal/updates';
import { FAILURE_TYPES, decideReviewUpdate, type ReviewDecision } from '../../workflows/definitions';
import { applicationFailureOf, failureType } from '../../workflows/failures';

const ReviewListQuery = z.object({
  status: z.enum(['pending', 'approved', 'declined']).optional(),
  merchant_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  /** `oldest` (the queue's order) or `newest` (recent decisions first: a limit keeps the latest, not the first ever made). */
  order: z.enum(['oldest', 'newest']).default('oldest'),
});

/** Reviewers list and decide withdrawal reviews; the decision goes to the paused checkout workflow. */
export function reviewAdminRoutes(deps: AppDeps): Router {
  const { db, temporal } = deps;
  const router = Router();

  router.get('/reviews', async (req, res) => {
    const query = parseOrThrow(ReviewListQuery, req.query, 'Query');
    const rows = await listReviews(db, { status: query.status, merchantId: query.merchant_id, limit: query.limit, newestFirst: query.order === 'newest' });
    const details = await reviewDetails(db, rows);
    res.json({ results: rows.map((row, i) => ({ ...presentReview(row), ...details[i] })) });
  });

  const decide = (decision: ReviewDecision) => async (req: any, res: any) => {
    parseEmptyBody(req.body);
    const decidedBy: string = req.operator ?? 'admin API';
    const review = await findReview(db, req.params.id);
    if (!review) throw new AdminNotFoundError('Review not found.', `No review ${req.params.id}.`);
    if (review.status !== 'pending') throw alreadyDecided(review.id, review.status);
    try {
      // One update id per send: a send's own retries after a transient refusal reach the same
      // decision, while a second reviewer's request, even at the same moment and for the same
      // decision, is a second update that the workflow refuses (one decision, one 200).
      const decided = await sendOnceCaughtUp(
        () => executeUpdateRetrying(temporal.workflow.getHandle(review.checkout_id), decideReviewUpdate, { args: [decision, decidedBy], updateId: `${review.id}-decision-${randomUUID()}` }),
        // The review is listed (its row committed) a moment before its workflow, which made it,
        // hears back and waits for the decision: until then it refuses every decision as a second
        // one. Sent again shortly, this one decides; a decision another reviewer made shows in the row.
        async (error) => error instanceof WorkflowUpdateFailedError && failureType(error) === FAILURE_TYPES.reviewAlreadyDecided && (await findReview(db, review.id))?.status === 'pending',
      );
      if (decided.status !== decision) throw alreadyDecided(review.id, decided.status);
      // The decision wrote its decider; this fills in one the workflow recorded without it (an
      // update accepted before the decider rode with it). It never overwrites.
      await setReviewDecider(db, review.id, decidedBy);
      res.json({ ...decided, decided_by: decidedBy });
    } catch (error) {
      // The approval's re-checks refused it (approvalRefusal): the review is still pending.
      if (failureType(error) === FAILURE_TYPES.approvalRefused) {
        throw new ValidationError('Approval refused.', applicationFailureOf(error)!.message);
      }
      // The workflow refuses a second decision: another reviewer decided first.
      if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
        const current = (await findReview(db, review.id))!;
        throw alreadyDecided(review.id, current.status);
      }
      throw error;
    }
  };

  router.post('/reviews/:id/approve', decide('approved'));
  router.post('/reviews/:id/decline', decide('declined'));
  return router;
}

function alreadyDecided(id: string, status: string): ValidationError {
  return new ValidationError('Review already decided.', `Review ${id} is ${status}; a decision cannot be changed.`);
}
