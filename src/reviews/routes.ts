import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { adminListLimit, startingAfter } from '../admin/schemas';
import type { AppDeps } from '../app-deps';
import { parseEmptyBody, parseOrThrow } from '../http/validate';
import type { ReviewDecision } from '../../workflows/contract';
import { adminActorOf, operator, route } from '../identity';
import { EVERY_MERCHANT } from '../identity/context';
import { decideReview, listReviewsForOperator } from './service';

const ReviewListQuery = z.object({
  status: z.enum(['pending', 'approved', 'declined']).optional(),
  merchant_id: z.string().min(1).optional(),
  min_amount_cents: z.coerce.number().int().min(0).optional(),
  max_amount_cents: z.coerce.number().int().min(0).optional(),
  /** Only reviews that have waited at least this long (opened this many minutes ago or earlier). */
  min_age_minutes: z.coerce.number().int().min(0).max(525_600).optional(),
  limit: adminListLimit,
  starting_after: startingAfter,
  /** `oldest` (the queue's order) or `newest` (recent decisions first: a limit keeps the latest, not the first ever made). */
  order: z.enum(['oldest', 'newest']).default('oldest'),
});

/** Reviewers list and decide withdrawal reviews; the decision goes to the paused checkout workflow and names the operator who made it. */
export function reviewAdminRoutes(deps: AppDeps): Router {
  const router = Router();

  route(router, 'get', '/reviews', operator('read'), async (req, res) => {
    const query = parseOrThrow(ReviewListQuery, req.query, 'Query');
    res.json(await listReviewsForOperator(deps.db, query));
  });

  const decide =
    (decision: ReviewDecision): RequestHandler =>
    async (req, res) => {
      parseEmptyBody(req.body);
      res.json(await decideReview(deps, adminActorOf(req), String(req.params.id), decision, EVERY_MERCHANT));
    };

  route(router, 'post', '/reviews/:id/approve', operator('decide_reviews'), decide('approved'));
  route(router, 'post', '/reviews/:id/decline', operator('decide_reviews'), decide('declined'));
  return router;
}
